// The player's tunable settings: one object, its defaults and ranges written here once (after
// Shaka Player's `configure()`). `MediaDRMPlayer.configure(partial)` merges a partial object
// into the current one; an unknown key, a wrong type or a value out of range throws, naming the
// key and what it accepts, and leaves the configuration as it was. docs/web.md "Configuration"
// lists every key.

/** Every setting: its default and the closed range it accepts (`integer`: whole numbers only). */
export const SETTINGS = Object.freeze({
  streaming: Object.freeze({
    /** Seconds buffered ahead of the playhead while the element plays. */
    bufferAheadSeconds: Object.freeze({ default: 12, min: 1, max: 600 }),
    /** Seconds asked for while it cannot play forward (start-up, a seek outside the buffer, a stall). */
    startupAheadSeconds: Object.freeze({ default: 2, min: 0.5, max: 60 }),
    /** Seconds kept behind the playhead before they are evicted. */
    keepBehindSeconds: Object.freeze({ default: 20, min: 1, max: 3600 }),
  }),
  abr: Object.freeze({
    /** False pins the lowest video variant (a viewer's quality choice pins another). */
    enabled: Object.freeze({ default: true, boolean: true }),
    /** The share of the bandwidth estimate a variant's BANDWIDTH may use. */
    safety: Object.freeze({ default: 0.7, min: 0.1, max: 1 }),
    /** Seconds that must be buffered before the player switches up. */
    upSwitchBufferSeconds: Object.freeze({ default: 4, min: 0, max: 120 }),
    /** Half-lives of the fast and slow bandwidth averages. */
    fastHalfLifeSeconds: Object.freeze({ default: 2, min: 0.1, max: 60 }),
    slowHalfLifeSeconds: Object.freeze({ default: 5, min: 0.1, max: 300 }),
  }),
  retry: Object.freeze({
    /** Sends of one key request that a rate limit (429 with Retry-After) may take in all. */
    maxRateLimitedSends: Object.freeze({ default: 4, min: 1, max: 10, integer: true }),
    /** The longest Retry-After the player waits out; a longer one fails the playback at once. */
    longestRetryAfterSeconds: Object.freeze({ default: 60, min: 1, max: 3600, integer: true }),
  }),
  network: Object.freeze({
    /** How long one key-service call (session start, key request, rewrap, heartbeat) may take. */
    keyServiceTimeoutSeconds: Object.freeze({ default: 30, min: 1, max: 300 }),
    /** How long a session's end waits for that session's requests still in flight. */
    sessionEndWaitSeconds: Object.freeze({ default: 5, min: 0, max: 60 }),
  }),
});

/** The defaults as a configuration object (frozen). */
export const DEFAULT_CONFIGURATION = freeze(Object.fromEntries(Object.entries(SETTINGS).map(([group, keys]) =>
  [group, Object.fromEntries(Object.entries(keys).map(([key, rule]) => [key, rule.default]))])));

function freeze(configuration) {
  for (const group of Object.values(configuration)) Object.freeze(group);
  return Object.freeze(configuration);
}

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** `base` with `partial` merged in, validated and frozen; throws a TypeError (unknown key, wrong
 * type) or a RangeError (out of range) naming the key, and never returns a half-merged object. */
export function mergeConfiguration(base, partial) {
  if (!isPlainObject(partial)) throw new TypeError("configure() takes an object, such as { streaming: { bufferAheadSeconds: 30 } }");
  const merged = {};
  for (const group of Object.keys(SETTINGS)) merged[group] = { ...base[group] };
  for (const [group, values] of Object.entries(partial)) {
    const keys = SETTINGS[group];
    if (!Object.hasOwn(SETTINGS, group)) throw new TypeError(`configure(): unknown group "${group}"; the groups are ${Object.keys(SETTINGS).join(", ")}`);
    if (!isPlainObject(values)) throw new TypeError(`configure(): ${group} must be an object of settings`);
    for (const [key, value] of Object.entries(values)) {
      if (!Object.hasOwn(keys, key)) throw new TypeError(`configure(): unknown setting "${group}.${key}"; ${group} has ${Object.keys(keys).join(", ")}`);
      merged[group][key] = checked(`${group}.${key}`, keys[key], value);
    }
  }
  if (merged.abr.fastHalfLifeSeconds > merged.abr.slowHalfLifeSeconds) {
    throw new RangeError("configure(): abr.fastHalfLifeSeconds must not exceed abr.slowHalfLifeSeconds");
  }
  return freeze(merged);
}

function checked(name, rule, value) {
  if (rule.boolean) {
    if (typeof value !== "boolean") throw new TypeError(`configure(): ${name} must be true or false`);
    return value;
  }
  if (typeof value !== "number" || !Number.isFinite(value)) throw new TypeError(`configure(): ${name} must be a number`);
  if (rule.integer && !Number.isInteger(value)) throw new RangeError(`configure(): ${name} must be a whole number`);
  if (value < rule.min || value > rule.max) throw new RangeError(`configure(): ${name} must be from ${rule.min} to ${rule.max} (it was ${value})`);
  return value;
}
