'use client';

import { useEffect } from 'react';
import { ErrorPanel } from '@/components/error-panel';

const UNEXPECTED = {
  title: 'Something went wrong',
  message: 'The dashboard hit an unexpected error while showing this page.',
};

export default function OperatorError({ error, retry }: { error: unknown; retry: () => void }) {
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
