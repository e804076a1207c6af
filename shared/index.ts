export * from './a2a';
export * from './collections';
export * from './errors';
export * from './invocation';
export * from './resources';
export * from './system';
export * from './history';
export * from './httpServices';
