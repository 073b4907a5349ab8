import t from 'tap'
import { cookieValue, isSessionToken } from '../../src/http/console/cookie.js'
import { originMatches } from '../../src/http/console/same-origin.js'

t.test('given Origin headers, then only the own origin or PUBLIC_BASE_URL’s matches, default ports and case aside', async (t) => {
  const own = 'http://127.0.0.1:8080'
  t.ok(originMatches('http://127.0.0.1:8080', own, undefined))
  t.ok(originMatches('https://Console.Example', 'https://console.example:443', undefined), 'https default port and host case')
  t.ok(originMatches('https://mats.example.com', own, 'https://mats.example.com/base/'), "PUBLIC_BASE_URL's origin")
  t.notOk(originMatches(undefined, own, undefined), 'no Origin')
  t.notOk(originMatches('null', own, undefined), 'an opaque origin')
  t.notOk(originMatches('http://127.0.0.1:8081', own, undefined), 'another port')
  t.notOk(originMatches('https://127.0.0.1:8080', own, undefined), 'another scheme')
  t.notOk(originMatches('http://127.0.0.1.evil.example:8080', own, undefined), 'a look-alike host')
  t.notOk(originMatches('file:///tmp/x.html', 'file:///tmp/x.html', undefined), 'not http(s)')
})

t.test('given Cookie headers, then the named cookie is read exactly', async (t) => {
  t.equal(cookieValue('a=1; mats_console=mcs_x; b=2', 'mats_console'), 'mcs_x')
  t.equal(cookieValue('xmats_console=1; mats_console=2', 'mats_console'), '2', 'not by suffix')
  t.equal(cookieValue('a=1', 'mats_console'), undefined)
  t.equal(cookieValue(undefined, 'mats_console'), undefined)
  t.ok(isSessionToken(`mcs_${'A'.repeat(43)}`))
  t.notOk(isSessionToken(`mcs_${'A'.repeat(42)}`), 'too short')
  t.notOk(isSessionToken(`mcs_${'A'.repeat(42)}.`), 'a character outside base64url')
})
