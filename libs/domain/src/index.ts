export * from './errors';
export * from './config';
export * from './validation';
export * from './text';
export * from './limits';
export * from './rule-set';
export * from './check';
export * from './rate-limit-headers';
