'use client';

import { type RefObject, useEffect, useRef, useState } from 'react';

/**
 * The width of an element, followed as it changes (window resized, sidebar opened). `initial` is what the server
 * render draws at; the SVG scales it to its box until the browser has measured, so nothing shifts on load.
 */
export function useWidth<T extends HTMLElement>(initial: number): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const measured = Math.floor(element.getBoundingClientRect().width);
      if (measured > 0) setWidth(measured);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
