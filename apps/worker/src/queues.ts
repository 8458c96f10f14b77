/** Queue and job names of the worker. */
export const RULES_QUEUE = 'rules';
export const REPUBLISH_RULES_JOB = 'republish-rules';
