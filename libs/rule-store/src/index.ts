export * from './installation';
export * from './rule-set-reconciler';
export * from './rule-set-store';
export * from './snapshots';
export * from './versions';
export * from './version-changes';
