import Link from 'next/link';

export function Brand({ href = '/plans' }: { href?: string }) {
  return (
    <Link href={href} className="brand">
      <span className="brand-mark" aria-hidden="true">
        T
      </span>
      Tollgate
    </Link>
  );
}
