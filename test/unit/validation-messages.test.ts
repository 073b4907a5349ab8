import type { FastifySchemaValidationError } from 'fastify'
import t from 'tap'
import { Type, type TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { describeValidation } from '../../src/http/plugins/errors.js'
import { HTTP_URL, NOT_BLANK } from '../../src/contract/common.js'
import { validatorCompiler } from '../../src/http/validator.js'
import { convertsText } from '../../src/infra/typebox/convert-text.js'

const Body = Type.Object({ name: Type.String({ minLength: 1, maxLength: 120 }), size: Type.Optional(Type.Integer()) }, { additionalProperties: false })
const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false })

/** Real TypeBox errors for a value, so a change in TypeBox's error shape breaks these tests. */
const errorsOf = (schema: TSchema, value: unknown): FastifySchemaValidationError[] => Compile(schema).Errors(value)

interface Outcome {
  readonly value?: unknown
  readonly error?: unknown
}
/** Runs the route validator exactly as Fastify would for one part of a request. */
function validate(schema: TSchema, httpPart: string, value: unknown): Outcome {
  const result = validatorCompiler({ schema, httpPart, method: 'GET', url: '/' })(value)
  if (typeof result !== 'object' || result === null || 'then' in result) throw new Error('expected a synchronous { value } or { error }')
  return result
}
const errorList = (outcome: Outcome): FastifySchemaValidationError[] => (Array.isArray(outcome.error) ? outcome.error : [])

t.test('a missing required field reads body.name: is required', async (t) => {
  t.equal(describeValidation(errorsOf(Body, {}), 'body'), 'body.name: is required')
})

t.test('an unknown field is named once as not a known field', async (t) => {
  const errors = errorsOf(Body, { name: 'x', extra: 1 })
  t.ok(
    errors.some((e) => e.keyword === 'boolean'),
    'TypeBox reports the extra field twice',
  )
  t.equal(describeValidation(errors, 'body'), 'body.extra: is not a known field')
})

t.test('a bound is reported with the field path and the TypeBox message', async (t) => {
  t.equal(describeValidation(errorsOf(Query, { limit: 0 }), 'querystring'), 'query.limit: must be >= 1')
  t.equal(describeValidation(errorsOf(Body, { name: 'n'.repeat(121) }), 'body'), 'body.name: must not have more than 120 characters')
  t.equal(describeValidation(errorsOf(Body, { name: 42 }), 'body'), 'body.name: must be string')
})

t.test('a known pattern reads as what it means; any other pattern keeps the TypeBox message', async (t) => {
  const Patterned = Type.Object({ name: Type.String({ pattern: NOT_BLANK }), url: Type.String({ pattern: HTTP_URL }), code: Type.String({ pattern: '^[A-Z]+$' }) })
  t.equal(describeValidation(errorsOf(Patterned, { name: '  ', url: 'https://a.example', code: 'A' }), 'body'), 'body.name: must not be blank (whitespace only)')
  t.equal(describeValidation(errorsOf(Patterned, { name: 'x', url: 'javascript:alert(1)', code: 'A' }), 'body'), 'body.url: must be an http:// or https:// URL')
  t.match(describeValidation(errorsOf(Patterned, { name: 'x', url: 'http://a', code: 'a' }), 'body'), /^body\.code: must match pattern/)
})

t.test('a value outside an enum or a union of literals lists the values allowed', async (t) => {
  const Choices = Type.Object({
    status: Type.Optional(Type.Enum(['pending', 'running'])),
    size: Type.Optional(Type.Union([Type.Literal('s'), Type.Literal(2)])),
    mode: Type.Optional(Type.Literal('fast')),
  })
  t.equal(describeValidation(errorsOf(Choices, { status: 'done' }), 'querystring'), 'query.status: must be one of pending, running')
  t.equal(describeValidation(errorsOf(Choices, { size: 'm' }), 'body'), 'body.size: must be one of s, 2', 'one message for the whole union')
  t.equal(describeValidation(errorsOf(Choices, { mode: 'slow' }), 'body'), 'body.mode: must be fast')
})

t.test('the querystring part is called query; other parts keep their name', async (t) => {
  t.match(describeValidation(errorsOf(Query, { limit: 101 }), 'querystring'), /^query\.limit: /)
  t.match(describeValidation(errorsOf(Query, { limit: 101 }), 'params'), /^params\.limit: /)
})

t.test('a wrong type for the whole part names the part itself', async (t) => {
  t.equal(describeValidation(errorsOf(Body, [{ name: 'x' }]), 'body'), 'body: must be object')
})

t.test('repeated messages are reported once', async (t) => {
  const errors = errorsOf(Body, { name: '' })
  t.equal(describeValidation([...errors, ...errors], 'body'), describeValidation(errors, 'body'))
})

t.test('at most three messages are reported, joined by semicolons', async (t) => {
  const Wide = Type.Object({ a: Type.String(), b: Type.String(), c: Type.String(), d: Type.String(), e: Type.String() })
  const errors = errorsOf(Wide, { a: 1, b: 2, c: 3, d: 4, e: 5 })
  t.equal(errors.length, 5)
  t.equal(describeValidation(errors, 'body'), 'body.a: must be string; body.b: must be string; body.c: must be string')
})

t.test('no errors at all still give a message naming the part', async (t) => {
  t.equal(describeValidation([], 'querystring'), 'query: invalid')
})

t.test('a query integer written plainly is converted', async (t) => {
  t.same(validate(Query, 'querystring', { limit: '5' }), { value: { limit: 5 } })
  t.same(validate(Query, 'querystring', { limit: '100' }), { value: { limit: 100 } })
  t.same(validate(Query, 'querystring', {}), { value: {} })
})

t.test('a query integer that would convert lossily is refused, naming the parameter', async (t) => {
  for (const limit of ['2.5', '1e1', '010', ' 5', '+5', '0x5']) {
    const outcome = validate(Query, 'querystring', { limit })
    t.notOk('value' in outcome, `limit=${limit} is not converted`)
    t.match(describeValidation(errorList(outcome), 'querystring'), /^query\.limit: /, `limit=${limit} names limit`)
  }
})

t.test('a query integer out of bounds or not a number is refused', async (t) => {
  for (const limit of ['0', '101', 'abc', '']) {
    const outcome = validate(Query, 'querystring', { limit })
    t.ok(errorList(outcome).length > 0, `limit=${JSON.stringify(limit)} is refused`)
    t.match(describeValidation(errorList(outcome), 'querystring'), /^query\.limit: /)
  }
})

t.test('a body is checked as sent: a numeric string is not an integer', async (t) => {
  const outcome = validate(Body, 'body', { name: 'x', size: '5' })
  t.notOk('value' in outcome)
  t.equal(describeValidation(errorList(outcome), 'body'), 'body.size: must be integer')
  t.same(validate(Body, 'body', { name: 'x', size: 5 }), { value: { name: 'x', size: 5 } })
})

t.test('headers whose fields are all text are checked as sent, and the same object is kept', async (t) => {
  const Headers = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 8 })) })
  t.notOk(convertsText(Headers), 'nothing to convert')
  t.ok(convertsText(Query), 'an integer field converts')
  t.ok(convertsText(Type.Object({ status: Type.Union([Type.Literal('a'), Type.Literal('b')]) })), 'a union converts, to be safe')
  t.ok(convertsText(Type.Object({ key: Type.String() }, { additionalProperties: Type.Integer() })), 'other fields that are integers convert')
  t.notOk(convertsText(Type.Object({ key: Type.String() }, { additionalProperties: false })), 'no other fields: nothing to convert')
  const headers = { 'idempotency-key': '007', accept: '*/*' }
  const outcome = validate(Headers, 'headers', headers)
  t.equal(outcome.value, headers, 'not copied by a conversion')
  t.match(describeValidation(errorList(validate(Headers, 'headers', { 'idempotency-key': '123456789' })), 'headers'), /^headers\.idempotency-key: /)
})
