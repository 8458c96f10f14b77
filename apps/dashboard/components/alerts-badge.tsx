'use client';

import { useEffect, useState } from 'react';
import { alertSummaryNow } from '@/lib/actions/alerts';
import './alerts-badge.css';
import type { AlertSummary } from '@/lib/api';

/** How often the navigation reads the count again while its page is visible. */
const EVERY_MS = 30_000;

/**
 * The navigation's count of alerts firing now (Grafana's bell): red while some nobody has acknowledged, quiet once
 * all are seen, nothing when none fire. Read with the page, then again every 30 s while the page is visible.
 */
export function AlertsBadge({ initial }: { initial: AlertSummary | null }) {
  const [summary, setSummary] = useState(initial);
  useEffect(() => setSummary(initial), [initial]);
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState !== 'visible') return;
      void alertSummaryNow().then((next) => {
        if (next) setSummary(next);
      });
    }, EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  if (!summary || summary.firing === 0) return null;
  const label = `${summary.firing} firing${summary.unacknowledged > 0 ? `, ${summary.unacknowledged} not acknowledged` : ', all acknowledged'}`;
  return (
    <span className={`nav-badge${summary.unacknowledged > 0 ? ' nav-badge-hot' : ''}`} data-testid="nav-alerts-firing" title={label} aria-label={label}>
      {summary.firing}
    </span>
  );
}
