export * from './a2a';
export * from './errors';
export * from './invocation';
export * from './system';
export * from './history';
