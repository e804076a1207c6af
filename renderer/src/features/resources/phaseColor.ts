/** Ready teal, Error red, in progress blue, waiting gray: the same colors as connection badges. */
export function phaseColor(phase: string): string {
  switch (phase) {
    case 'Ready':
      return 'teal';
    case 'Error':
      return 'red';
    case 'Connecting':
      return 'blue';
    default:
      return 'gray';
  }
}
