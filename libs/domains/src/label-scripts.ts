/**
 * UTS #39's "highly restrictive" level, label by label: a label is written in
 * one script, or in Latin with the scripts Japanese, Korean or Chinese text
 * mixes with it. Common and Inherited characters (digits, the hyphen,
 * combining marks) belong to every script. `аpple` (Cyrillic а, Latin pple)
 * is refused; `аррӏе` (all Cyrillic) is a single-script label and passes:
 * whole-script confusables need the confusables table, which is not bundled.
 */

/** Every script Unicode names, as V8's `\p{Script=…}` knows them. */
const SCRIPTS = (
  'Latin Cyrillic Greek Han Hiragana Katakana Hangul Bopomofo Arabic Hebrew Armenian Georgian Thai Lao Devanagari ' +
  'Bengali Gurmukhi Gujarati Oriya Tamil Telugu Kannada Malayalam Sinhala Tibetan Myanmar Khmer Ethiopic Cherokee ' +
  'Mongolian Thaana Syriac Nko Tifinagh Yi Vai Canadian_Aboriginal Ogham Runic Coptic Glagolitic Gothic Adlam Ahom ' +
  'Anatolian_Hieroglyphs Avestan Balinese Bamum Bassa_Vah Batak Bhaiksuki Brahmi Braille Buginese Buhid Carian ' +
  'Caucasian_Albanian Chakma Cham Chorasmian Cuneiform Cypriot Cypro_Minoan Deseret Dives_Akuru Dogra Duployan ' +
  'Egyptian_Hieroglyphs Elbasan Elymaic Grantha Gunjala_Gondi Hanifi_Rohingya Hanunoo Hatran Imperial_Aramaic ' +
  'Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khojki ' +
  'Khudawadi Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Mandaic Manichaean Marchen ' +
  'Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mro Multani ' +
  'Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nushu Nyiakeng_Puachue_Hmong Ol_Chiki Old_Hungarian Old_Italic ' +
  'Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Osage Osmanya ' +
  'Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Samaritan Saurashtra Sharada ' +
  'Shavian Siddham SignWriting Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Tagalog Tagbanwa Tai_Le Tai_Tham ' +
  'Tai_Viet Takri Tangsa Tangut Tirhuta Toto Ugaritic Wancho Warang_Citi Yezidi Zanabazar_Square'
)
  .split(' ')
  .map((name) => ({ name, pattern: new RegExp(`^\\p{Script=${name}}$`, 'u') }));

const SHARED = /^[\p{Script=Common}\p{Script=Inherited}]$/u;

/** The scripts Latin may be mixed with, as UTS #39 lets Japanese, Korean and Chinese text do. */
const ALLOWED_MIXES: readonly ReadonlySet<string>[] = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Hangul']),
  new Set(['Latin', 'Han', 'Bopomofo']),
];

/** The script of one character (a code point), null for Common and Inherited; `Unknown` for unassigned ones. */
function scriptOf(character: string): string | null {
  if (/^[a-z]$/i.test(character)) return 'Latin';
  if (/^[0-9-]$/.test(character) || SHARED.test(character)) return null;
  return SCRIPTS.find((s) => s.pattern.test(character))?.name ?? 'Unknown';
}

/** The scripts of a label (Unicode form), without Common and Inherited. */
export function labelScripts(label: string): Set<string> {
  const scripts = new Set<string>();
  for (const character of label) {
    const script = scriptOf(character);
    if (script !== null) scripts.add(script);
  }
  return scripts;
}

/** Whether a label is "highly restrictive" in UTS #39's sense: one script, or Latin in one of the allowed mixes. */
export function isHighlyRestrictive(label: string): boolean {
  const scripts = labelScripts(label);
  if (scripts.size <= 1) return !scripts.has('Unknown');
  return ALLOWED_MIXES.some((mix) => [...scripts].every((s) => mix.has(s)));
}
