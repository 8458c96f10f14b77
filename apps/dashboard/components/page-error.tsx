'use client';

import { useEffect } from 'react';
import { ErrorPanel } from './error-panel';

const UNEXPECTED = {
  title: 'Something went wrong',
  message: 'The dashboard hit an unexpected error while showing this page.',
};

/** What a page of either kind of account shows when it throws: a panel under the site header, and Try again. */
export function PageError({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <ErrorPanel
      problem={UNEXPECTED}
      action={
        <button type="button" className="btn btn-secondary" onClick={() => retry()}>
          Try again
        </button>
      }
    />
  );
}
