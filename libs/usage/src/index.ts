export * from './keys';
export * from './fields';
export * from './store';
export * from './range';
export * from './postgres-reader';
export * from './denials';
