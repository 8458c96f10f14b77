/** Where webhook code reads the time: the system's in production, a test clock in tests (the retry schedule spans days). */
export interface WebhookClock {
  now(): Date;
}

export const systemClock: WebhookClock = { now: () => new Date() };
