export * from './keys';
export * from './fields';
export * from './store';
