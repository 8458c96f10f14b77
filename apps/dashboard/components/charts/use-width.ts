'use client';

import { type RefObject, useEffect, useRef, useState } from 'react';

/**
 * The width of an element, followed as it changes (window resized, sidebar opened). `initial` is what the server
 * render draws at; the SVG scales it to its box until the browser has measured, so nothing shifts on load.
 * `measured` is told each width measured (to remember it for the next server render).
 */
export function useWidth<T extends HTMLElement>(initial: number, measured?: (width: number) => void): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => {
      const width = Math.floor(element.getBoundingClientRect().width);
      if (width <= 0) return;
      setWidth(width);
      measured?.(width);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
    // Measured once on mount and then on resize: `measured` is the callback of the first render.
  }, []);
  return [ref, width];
}
