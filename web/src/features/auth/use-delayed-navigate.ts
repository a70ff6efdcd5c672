import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';

/** navigate() after a delay; the timer is dropped if the page goes away first. */
export function useDelayedNavigate(): (to: string, delayMs: number) => void {
  const navigate = useNavigate();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  return (to, delayMs) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      void navigate(to);
    }, delayMs);
  };
}
