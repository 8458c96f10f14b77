import type { ReactNode } from 'react';
import './page-heading.css';

interface PageHeadingProps {
  title: string;
  description: string;
  /** What the page is of, under its title when the title is a kind (an endpoint's URL): wrapped, at most two lines. */
  subject?: { text: string; testId: string };
  children?: ReactNode;
}

export function PageHeading({ title, description, subject, children }: PageHeadingProps) {
  return (
    <div className="page-heading">
      <div className="page-heading-text">
        <h1>{title}</h1>
        {subject && (
          <p className="page-heading-subject mono" title={subject.text} data-testid={subject.testId}>
            {subject.text}
          </p>
        )}
        <p>{description}</p>
      </div>
      {children}
    </div>
  );
}
