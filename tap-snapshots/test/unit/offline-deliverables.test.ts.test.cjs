/* IMPORTANT
 * This snapshot file is auto-generated, but designed for humans.
 * It should be checked into source control and tracked carefully.
 * Re-generate by setting TAP_SNAPSHOT=1 and running tests.
 * Make sure to inspect the output below.  Do not ignore changes!
 */
'use strict'
exports[`test/unit/offline-deliverables.test.ts > TAP > given fixed briefs, when every agent builds its offline deliverable, then each is the same bytes as recorded (after a deliberate change to the text: tap --snapshot) > must match snapshot 1`] = `
Object {
  "creative / empty": "fa3289c243baaae6",
  "creative / launch": "f60e31f94324070e",
  "creative / nurture": "b50162fed28d6fad",
  "creative / vague": "2700139e7f2af6b2",
  "cro / empty": "7e3fdb0662b9248e",
  "cro / launch": "ddb3ad6f490f592b",
  "cro / nurture": "f9c3a3bf9bb159d1",
  "cro / vague": "50fcd39c4f3088f2",
  "demand-gen / empty": "ad8dbe004425537f",
  "demand-gen / launch": "e51f866019c28d97",
  "demand-gen / nurture": "1920fea6189bea18",
  "demand-gen / vague": "6e12ae061ca718f0",
  "email-marketing / empty": "601a795323ae438a",
  "email-marketing / launch": "9aba1816458f0de0",
  "email-marketing / nurture": "26d24921e4213bb4",
  "email-marketing / vague": "d27d3de26dc8212e",
  "growth-marketer / empty": "8e59844cbb2c3e71",
  "growth-marketer / launch": "8aa9cabf9cd073bc",
  "growth-marketer / nurture": "9c292c7612201bef",
  "growth-marketer / vague": "f4d6211ddf6d1198",
  "influencer-marketing / empty": "907b1257358cbb81",
  "influencer-marketing / launch": "54fa9aef3cb925e7",
  "influencer-marketing / nurture": "63721d921038e3b9",
  "influencer-marketing / vague": "2dbf6ca28da9c41c",
  "organic-social / empty": "48140f9946474066",
  "organic-social / launch": "c0d17b162981a099",
  "organic-social / nurture": "e21d9a748ca485ec",
  "organic-social / vague": "f17a3b6c12703b64",
  "paid-media / empty": "1f688a3f093382fa",
  "paid-media / launch": "48751c78628c684c",
  "paid-media / nurture": "8a7dc0bae63b5349",
  "paid-media / vague": "2cb0136772ca85df",
  "seo / empty": "ec08ae341d42223c",
  "seo / launch": "255427100de62d3a",
  "seo / nurture": "bfbc5de011ea8c4c",
  "seo / vague": "e08d154ef8d9f966",
  "web-developer / empty": "853c212f05f871a7",
  "web-developer / launch": "f01d2213495ae5d8",
  "web-developer / nurture": "2e6053ca88397604",
  "web-developer / vague": "219848137ac6b4f0",
}
`
