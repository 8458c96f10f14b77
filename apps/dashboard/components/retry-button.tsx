'use client';

import { useRouter } from 'next/navigation';
import { useTransition } from 'react';

/** Re-renders the current route on the server, re-reading everything from the API. */
export function RetryButton() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <button
      type="button"
      className="btn btn-secondary"
      disabled={pending}
      onClick={() => startTransition(() => router.refresh())}
      data-testid="retry"
    >
      {pending ? 'Retrying…' : 'Try again'}
    </button>
  );
}
