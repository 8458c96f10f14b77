export * from './keys';
export * from './fields';
export * from './store';
export * from './ids';
export * from './postgres-writer';
export * from './rollup';
