'use client';

import { createContext, startTransition, use, useActionState, useCallback, useState, type ReactNode } from 'react';
import { IDLE, type FormState } from '@/lib/form-state';
import { useObserveRuleVersion } from './rule-version';

interface Success {
  /** Where the message shows: the form, plan or tenant it is about. */
  key: string;
  message: string;
}

interface MutationStatusContextValue {
  last: Success | null;
  /** A success under `key`; the rule set version it published, if it changed the rules. */
  report: (key: string, message: string, ruleVersion?: number) => void;
  /** A failed attempt under `key` takes its earlier success off the screen. */
  clear: (key: string) => void;
}

const MutationStatusContext = createContext<MutationStatusContextValue | null>(null);

export function useMutationStatus(): MutationStatusContextValue {
  const context = use(MutationStatusContext);
  if (!context) throw new Error('Mutation forms must be used inside MutationStatusProvider');
  return context;
}

/**
 * The page's last successful change: only its message is on screen, next to what it changed, so there is one
 * status naming the new rule set version at a time, and the header badge learns that version at once.
 */
export function MutationStatusProvider({ children }: { children: ReactNode }) {
  const [last, setLast] = useState<Success | null>(null);
  const observeRuleVersion = useObserveRuleVersion();
  const report = useCallback(
    (key: string, message: string, ruleVersion?: number) => {
      setLast({ key, message });
      if (ruleVersion !== undefined) observeRuleVersion(ruleVersion);
    },
    [observeRuleVersion],
  );
  const clear = useCallback((key: string) => setLast((previous) => (previous?.key === key ? null : previous)), []);
  return <MutationStatusContext value={{ last, report, clear }}>{children}</MutationStatusContext>;
}

type FormAction = (previous: FormState, formData: FormData) => Promise<FormState>;

/**
 * `useActionState` for a mutation form: a success is reported under `key` (and `onSuccess` runs) as soon as the
 * action answers, from here rather than from an effect, because the form itself may be gone by then (a removed
 * limit, a deleted plan).
 */
export function useMutation(action: FormAction, key: string, onSuccess?: () => void) {
  const { report, clear } = useMutationStatus();
  return useActionState(async (previous: FormState, formData: FormData) => {
    const next = await action(previous, formData);
    startTransition(() => {
      if (next.status !== 'done') return clear(key);
      report(key, next.message, next.ruleVersion);
      onSuccess?.();
    });
    return next;
  }, IDLE);
}

/** The last success's message when it is the one shown under `key`. */
export function useSuccessMessage(key: string): string | undefined {
  const { last } = useMutationStatus();
  return last?.key === key ? last.message : undefined;
}

export function MutationStatus({ statusKey, className = 'form-message' }: { statusKey: string; className?: string }) {
  const message = useSuccessMessage(statusKey);
  if (!message) return null;
  return (
    <p className={`${className} save-status`} role="status" data-testid="mutation-status">
      {message}
    </p>
  );
}
