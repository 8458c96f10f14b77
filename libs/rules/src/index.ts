export * from './compile';
export * from './compile-policies';
export * from './diff';
export * from './limit-rules';
export * from './policy-matcher';
export * from './describe-changes';
