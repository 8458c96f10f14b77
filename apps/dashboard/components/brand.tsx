import Link from 'next/link';
import './brand.css';

/** The logo, a link home: `/` sends each account to its own landing page. */
export function Brand({ href = '/' }: { href?: string }) {
  return (
    <Link href={href} className="brand">
      <span className="brand-mark" aria-hidden="true">
        T
      </span>
      Tollgate
    </Link>
  );
}
