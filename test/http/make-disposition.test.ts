/** makeDisposition: Symfony 5.4's HeaderUtils::makeDisposition and ResponseHeaderBag::makeDisposition. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, makeDisposition, ResponseHeaders, type Disposition } from '../../src/index.ts';
import { quoteHeader } from '../../src/http/header-utils.ts';
import { quietApp } from '../support/app.ts';

// HeaderUtilsTest::provideMakeDisposition (Symfony 5.4), every row: disposition, name, fallback, value.
const symfonyRows: Array<[Disposition, string, string, string]> = [
  ['attachment', 'foo.html', 'foo.html', 'attachment; filename=foo.html'],
  ['attachment', 'foo.html', '', 'attachment; filename=foo.html'],
  ['attachment', 'foo bar.html', '', 'attachment; filename="foo bar.html"'],
  ['attachment', 'foo "bar".html', '', 'attachment; filename="foo \\"bar\\".html"'],
  ['attachment', 'foo%20bar.html', 'foo bar.html', 'attachment; filename="foo bar.html"; filename*=utf-8\'\'foo%2520bar.html'],
  ['attachment', 'föö.html', 'foo.html', 'attachment; filename=foo.html; filename*=utf-8\'\'f%C3%B6%C3%B6.html'],
];

for (const [disposition, filename, fallback, expected] of symfonyRows) {
  test(`makeDisposition(${JSON.stringify(disposition)}, ${JSON.stringify(filename)}, ${JSON.stringify(fallback)}) is Symfony's ${JSON.stringify(expected)}`, () => {
    assert.equal(makeDisposition(disposition, filename, fallback), expected);
    // ResponseHeaderBag::makeDisposition delegates: the same value, and nothing set.
    const headers = new ResponseHeaders();
    assert.equal(headers.makeDisposition(disposition, filename, fallback), expected);
    assert.equal(headers.has('content-disposition'), false);
  });
}

const SLASHES = 'The filename and the fallback cannot contain the "/" and "\\" characters.';
// HeaderUtilsTest::provideMakeDispositionFail (the fallback defaults to the name), each with the message
// of the check it fails, plus testMakeDispositionInvalidDisposition.
const symfonyFailures: Array<[string, string, string]> = [
  ['attachment', 'foo%20bar.html', 'The filename fallback cannot contain the "%" character.'],
  ['attachment', 'foo/bar.html', SLASHES],
  ['attachment', '/foo.html', SLASHES],
  ['attachment', 'foo\\bar.html', SLASHES],
  ['attachment', '\\foo.html', SLASHES],
  ['attachment', 'föö.html', 'The filename fallback must only contain ASCII characters.'],
  ['invalid', 'foo.html', 'The disposition must be either "attachment" or "inline".'],
];

for (const [disposition, filename, message] of symfonyFailures) {
  test(`makeDisposition(${JSON.stringify(disposition)}, ${JSON.stringify(filename)}) is refused: ${message}`, () => {
    assert.throws(() => makeDisposition(disposition as Disposition, filename), { name: 'TypeError', message });
    assert.throws(() => new ResponseHeaders().makeDisposition(disposition as Disposition, filename), { name: 'TypeError', message });
  });
}

test('the checks run in Symfony\'s order, each name checked for path separators, the disposition case-sensitively', () => {
  const refused = (d: string, name: string, fallback = '') => {
    try {
      makeDisposition(d as Disposition, name, fallback);
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    }
  };
  assert.equal(refused('Attachment', 'a.txt'), 'The disposition must be either "attachment" or "inline".');
  assert.equal(refused('', 'a.txt'), 'The disposition must be either "attachment" or "inline".');
  // The disposition first, then ASCII, then `%`, then separators.
  assert.equal(refused('form-data', 'ä/%.txt'), 'The disposition must be either "attachment" or "inline".');
  assert.equal(refused('attachment', 'a.txt', 'ä/%.txt'), 'The filename fallback must only contain ASCII characters.');
  assert.equal(refused('attachment', 'a.txt', '/%.txt'), 'The filename fallback cannot contain the "%" character.');
  // A separator in the name alone, or in the fallback alone, is refused; a `%` in the name alone is not.
  assert.equal(refused('attachment', 'dir/ä.txt', 'a.txt'), SLASHES);
  assert.equal(refused('attachment', 'ä.txt', 'dir\\a.txt'), SLASHES);
  assert.equal(refused('attachment', '100%.txt', '100.txt'), 'accepted');
  // Outside U+0020–U+007E: a tab, DEL and a control character are no ASCII fallback either.
  assert.equal(refused('attachment', 'a\tb.txt'), 'The filename fallback must only contain ASCII characters.');
  assert.equal(refused('attachment', 'a\x7fb.txt'), 'The filename fallback must only contain ASCII characters.');
  assert.equal(refused('attachment', 'a\rb.txt'), 'The filename fallback must only contain ASCII characters.');
});

test('inline, an empty name, and rawurlencode\'s escapes (UTF-8 bytes, upper-case hex, `~` kept, `!\'()*` and space escaped)', () => {
  assert.equal(makeDisposition('inline', 'report.pdf'), 'inline; filename=report.pdf');
  assert.equal(makeDisposition('attachment', ''), 'attachment; filename=""');
  assert.equal(makeDisposition('attachment', '€-budget.csv', 'download.csv'), "attachment; filename=download.csv; filename*=utf-8''%E2%82%AC-budget.csv");
  assert.equal(makeDisposition('attachment', "a b!'()*~_-.ä", 'ab.txt'), "attachment; filename=ab.txt; filename*=utf-8''a%20b%21%27%28%29%2A~_-.%C3%A4");
  // Beyond the BMP: the four UTF-8 bytes of one code point.
  assert.equal(makeDisposition('attachment', '📄.txt', 'doc.txt'), "attachment; filename=doc.txt; filename*=utf-8''%F0%9F%93%84.txt");
  // A fallback that differs from an ASCII name still adds filename*, as Symfony compares the two strings.
  assert.equal(makeDisposition('attachment', 'a.txt', 'b.txt'), "attachment; filename=b.txt; filename*=utf-8''a.txt");
});

test('PCRE\'s `$` quirk: one final line feed passes the ASCII check and the token check, and setting the value is then refused', () => {
  const value = makeDisposition('attachment', 'a.txt\n');
  assert.equal(value, 'attachment; filename=a.txt\n');
  assert.throws(() => new ResponseHeaders().set('content-disposition', value), TypeError);
  // Two line feeds, or one not at the end, are refused as Symfony refuses them.
  assert.throws(() => makeDisposition('attachment', 'a.txt\n\n'), { message: 'The filename fallback must only contain ASCII characters.' });
  assert.throws(() => makeDisposition('attachment', 'a\nb.txt'), { message: 'The filename fallback must only contain ASCII characters.' });
  // In the name with an ASCII fallback, a line feed is just a byte to encode.
  assert.equal(makeDisposition('attachment', 'a\nb.txt', 'ab.txt'), "attachment; filename=ab.txt; filename*=utf-8''a%0Ab.txt");
});

test('quoteHeader is HeaderUtils::quote (HeaderUtilsTest::testQuote, and the empty string)', () => {
  assert.equal(quoteHeader('foo'), 'foo');
  assert.equal(quoteHeader("az09!#$%&'*.^_`|~-"), "az09!#$%&'*.^_`|~-");
  assert.equal(quoteHeader('foo bar'), '"foo bar"');
  assert.equal(quoteHeader('foo [bar]'), '"foo [bar]"');
  assert.equal(quoteHeader('foo "bar"'), '"foo \\"bar\\""');
  assert.equal(quoteHeader('foo \\ bar'), '"foo \\\\ bar"');
  assert.equal(quoteHeader(''), '""');
});

test('end to end: a download route sends `€-budget.csv` as ASCII (fallback and filename*), and a non-ASCII name without fallback is a 500 as in Symfony', async () => {
  const app = quietApp({
    routes: [
      {
        name: 'report',
        path: '/api/reports/:name',
        methods: ['GET'],
        controller: (r) => {
          const response = HttpResponse.text('a;b\n1;2\n', 200, { 'content-type': 'text/csv; charset=UTF-8' });
          response.headers.set('content-disposition', response.headers.makeDisposition('attachment', `${String(r.attributes.get('name'))}.csv`, 'download.csv'));
          return response;
        },
      },
      {
        name: 'no_fallback',
        path: '/api/raw/:name',
        methods: ['GET'],
        controller: (r) => HttpResponse.text('x', 200, { 'content-disposition': makeDisposition('attachment', `${String(r.attributes.get('name'))}.csv`) }),
      },
    ],
  });

  const response = await app.fetch(new Request('http://localhost/api/reports/%E2%82%AC-budget'));
  assert.equal(response.status, 200, await response.clone().text());
  const header = response.headers.get('content-disposition');
  assert.equal(header, "attachment; filename=download.csv; filename*=utf-8''%E2%82%AC-budget.csv");
  assert.ok([...header!].every((c) => c.charCodeAt(0) < 0x80), 'only ASCII on the wire');
  assert.equal(await response.text(), 'a;b\n1;2\n');

  const ascii = await app.fetch(new Request('http://localhost/api/reports/bilan-2024'));
  assert.equal(ascii.headers.get('content-disposition'), 'attachment; filename=download.csv; filename*=utf-8\'\'bilan-2024.csv');

  const plain = await app.fetch(new Request('http://localhost/api/raw/bilan-2024'));
  assert.equal(plain.headers.get('content-disposition'), 'attachment; filename=bilan-2024.csv');
  const refused = await app.fetch(new Request('http://localhost/api/raw/%E2%82%AC-budget'));
  assert.equal(refused.status, 500);
  assert.equal(refused.headers.get('content-disposition'), null);
});
