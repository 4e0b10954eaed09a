/** Ticker validation: the accepted shapes and a catalogue of hostile inputs. */
import { normalizeSymbol, SYMBOL_MAX_LENGTH, SYMBOL_PATTERN } from '../../../subgraphs/analysis/engine/symbol.js';

describe('SYMBOL_PATTERN', () => {
  it.each(['A', 'AAPL', 'BRK.B', 'BF-B', 'TGMI', 'GOOGL', 'ABCDEF', 'ABCDEF.GHI', 'X1', 'A-1B2'])('matches %s', (s) => {
    expect(SYMBOL_PATTERN.test(s)).toBe(true);
  });

  it.each(['', 'aapl', '1ABC', 'ABCDEFG', 'BRK.', 'BRK.BBBB', 'BRK..B', 'BRK.B.C', '.B', 'A B'])('rejects %j', (s) => {
    expect(SYMBOL_PATTERN.test(s)).toBe(false);
  });

  it('never matches more than SYMBOL_MAX_LENGTH characters', () => {
    expect(SYMBOL_MAX_LENGTH).toBe(10);
    expect(SYMBOL_PATTERN.test('ABCDEF.GHI')).toBe(true);
    expect(SYMBOL_PATTERN.test('ABCDEFG.HI')).toBe(false);
  });
});

describe('normalizeSymbol', () => {
  it.each([
    ['AAPL', 'AAPL'],
    ['aapl', 'AAPL'],
    ['  msft\t', 'MSFT'],
    ['brk.b', 'BRK.B'],
    ['BF-B', 'BF-B'],
    ['TGMI', 'TGMI'],
    ['A', 'A'],
    ['abcdef.ghi', 'ABCDEF.GHI'],
    ['\nGOOGL\r\n', 'GOOGL'],
  ])('normalises %j to %s', (raw, expected) => {
    expect(normalizeSymbol(raw)).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['too long', 'ABCDEFGHIJK'],
    ['very long', 'A'.repeat(10_000)],
    ['inner space', 'BRK B'],
    ['inner tab', 'BRK\tB'],
    ['path traversal', '../x'],
    ['deep path traversal', '../../etc/passwd'],
    ['absolute path', '/etc/passwd'],
    ['windows path', '..\\x'],
    ['slash', 'A/B'],
    ['SQL quote', "A'"],
    ['SQL injection', "A'; DROP TABLE bars;--"],
    ['SQL comment', 'A--'],
    ['semicolon', 'A;B'],
    ['double quote', 'A"B'],
    ['percent wildcard', 'A%'],
    ['underscore', 'A_B'],
    ['asterisk', 'A*'],
    ['parentheses', 'A()'],
    ['equals', 'A=1'],
    ['null byte', 'AAPL\u0000'],
    ['inner newline', 'AA\nPL'],
    ['unicode letters', 'ÄPPLE'],
    ['German sharp s (upper-cases to SS)', 'aß'],
    ['Turkish dotless i (upper-cases to I)', 'ı'],
    ['long s (upper-cases to S)', 'ſ'],
    ['Cyrillic look-alike', 'АAPL'],
    ['fullwidth letters', 'ＡＡＰＬ'],
    ['zero-width space', 'AA\u200BPL'],
    ['emoji', 'A😀'],
    ['leading digit', '1ABC'],
    ['leading dot', '.AAPL'],
    ['leading dash', '-AAPL'],
    ['trailing dot', 'AAPL.'],
    ['two suffixes', 'BRK.B.C'],
    ['suffix too long', 'BRK.BBBB'],
    ['base too long', 'ABCDEFG'],
    ['caret index', '^GSPC'],
    ['dollar', '$AAPL'],
    ['HTML', '<script>'],
    ['URL', 'http://x'],
  ])('rejects %s', (_label, raw) => {
    expect(normalizeSymbol(raw)).toBeNull();
  });

  it('rejects non-string input from untyped callers', () => {
    expect(normalizeSymbol(undefined as unknown as string)).toBeNull();
    expect(normalizeSymbol(42 as unknown as string)).toBeNull();
  });
});
