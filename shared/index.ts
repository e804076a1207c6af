export * from './errors';
export * from './invocation';
export * from './system';
