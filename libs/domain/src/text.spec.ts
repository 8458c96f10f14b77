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

  it.each([
    ['a right-to-left override', 'invoice\u202Etxt.exe', 'U+202E'],
    ['a left-to-right embedding', 'a\u202Ab', 'U+202A'],
    ['a first-strong isolate', 'a\u2068b\u2069', 'U+2068'],
    ['a pop directional isolate', 'ab\u2069', 'U+2069'],
    ['a zero-width space', 'ac\u200Bme', 'U+200B'],
    ['a byte order mark inside (trimming takes one at an end away)', 'ac\uFEFFme', 'U+FEFF'],
    ['a word joiner', 'a\u2060b', 'U+2060'],
    ['a soft hyphen', 'ac\u00ADme', 'U+00AD'],
    ['a tag character (invisible text)', 'acme\u{E0069}\u{E0067}', 'U+E0069'],
    ['a zero-width joiner at an end', 'acme\u200D', 'U+200D at an end'],
    ['a zero-width non-joiner beside a space', 'ac \u200Cme', 'U+200C at an end'],
    ['two joiners in a row', 'a\u200D\u200Db', 'U+200D at an end'],
  ])('refuses %s in names, query values and check text, naming it', (_label, text, code) => {
    for (const schema of [freeText(), queryText(100), safeText]) {
      const result = schema.safeParse(text);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toContain(`must not contain invisible or bidirectional formatting characters (${code}`);
    }
  });

  it('keeps letters of every script, emoji (surrogate pairs, joiners) and inner spaces; trims names', () => {
    const text = 'Ünïcødé 名前 🚀 👩‍💻 می‌خواهم two  spaces';
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
  it('replaces every C0, DEL, C1 and formatting character with ?, and leaves the rest as it is', () => {
    expect(replaceControlCharacters('a\u0000b\u001b[31mc\u007fd\u0085e')).toBe('a?b?[31mc?d?e');
    expect(replaceControlCharacters('plain – ünïcode ✓')).toBe('plain – ünïcode ✓');
    expect(replaceControlCharacters('a\u202Eb\u200Bc\uFEFF')).toBe('a?b?c?');
  });
});
