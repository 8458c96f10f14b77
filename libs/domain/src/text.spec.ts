import { describe, expect, it } from 'vitest';
import { freeText, queryText, replaceControlCharacters, safeText } from './text';

describe('free text', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['a bell and an escape sequence', 'bell\u0007\u001b[31mred'],
    ['DEL', 'a\u007fb'],
    ['a C1 control', 'next\u0085line'],
    ['a lone high surrogate', 'half \ud83d'],
    ['a lone low surrogate', '\ude80 half'],
  ])('refuses %s in names, query values and check text', (_label, text) => {
    for (const schema of [freeText(), queryText(100), safeText]) expect(schema.safeParse(text).success).toBe(false);
  });

  it('keeps letters of every script, emoji (surrogate pairs, joiners) and inner spaces; trims names', () => {
    const text = 'Ünïcødé 名前 🚀 👩‍💻 two  spaces';
    expect(freeText().parse(`  ${text}  `)).toBe(text);
    expect(safeText.parse(text)).toBe(text);
  });

  it('bounds names by characters after trimming', () => {
    expect(freeText(3).safeParse(' abc ').success).toBe(true);
    expect(freeText(3).safeParse('abcd').success).toBe(false);
    expect(freeText().safeParse('   ').success).toBe(false);
  });
});

describe('replaceControlCharacters', () => {
  it('replaces every C0, DEL and C1 character with ?, and leaves the rest as it is', () => {
    expect(replaceControlCharacters('a\u0000b\u001b[31mc\u007fd\u0085e')).toBe('a?b?[31mc?d?e');
    expect(replaceControlCharacters('plain – ünïcode ✓')).toBe('plain – ünïcode ✓');
  });
});
