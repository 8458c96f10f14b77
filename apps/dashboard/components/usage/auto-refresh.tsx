'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/** Re-renders the page from the server every `everyMs` while it is visible: a range that ends now keeps up. */
export function AutoRefresh({ everyMs = 10_000 }: { everyMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, everyMs);
    return () => clearInterval(timer);
  }, [router, everyMs]);
  return (
    <span className="muted auto-refresh" data-testid="auto-refresh">
      Updates every {Math.round(everyMs / 1000)} s
    </span>
  );
}
