/** A choice of how long the old secret keeps working next to the new one after a rotation. */
export interface Overlap {
  seconds: number;
  label: string;
}

/** Every overlap a rotation offers, shortest first (a key's rotation offers the first three). */
export const OVERLAPS = [
  { seconds: 0, label: 'No overlap' },
  { seconds: 3_600, label: '1 hour overlap' },
  { seconds: 86_400, label: '1 day overlap' },
  { seconds: 604_800, label: '7 days overlap' },
] as const satisfies readonly Overlap[];

/** What a rotation offers: its overlaps, and the one chosen until someone picks another. */
export interface OverlapMenu {
  choices: readonly Overlap[];
  defaultSeconds: number;
}

/** The overlap a form posted (`text`), if it is one of the menu's; otherwise the menu's default. */
export function readOverlapChoice(text: string, menu: OverlapMenu): number {
  const seconds = Number(text);
  return menu.choices.some((overlap) => overlap.seconds === seconds) && text.trim() !== '' ? seconds : menu.defaultSeconds;
}
