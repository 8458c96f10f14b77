export * from './compile';
export * from './diff';
export * from './rule-set-store';
export * from './versions';
export * from './limit-rules';
export * from './snapshot';
export * from './compile-policies';
export * from './policy-matcher';
