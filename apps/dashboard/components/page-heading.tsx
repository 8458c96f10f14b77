import type { ReactNode } from 'react';

interface PageHeadingProps {
  title: string;
  description: string;
  children?: ReactNode;
}

export function PageHeading({ title, description, children }: PageHeadingProps) {
  return (
    <div className="page-heading">
      <div>
        <h1>{title}</h1>
        <p>{description}</p>
      </div>
      {children}
    </div>
  );
}
