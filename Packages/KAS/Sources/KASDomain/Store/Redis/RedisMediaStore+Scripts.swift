import KASRedis

/// The Lua scripts of `RedisMediaStore` (data model in its header comment). Each script runs
/// atomically in Redis, so every read-check-write of the media store is one script and never a
/// read followed by a write from this process.
///
/// Every script takes the key prefix as `ARGV[1]` and builds its keys with the functions of
/// `prelude`, so each key format is written once, here. Times are milliseconds since 1970 passed
/// as decimal strings and stored as given (Lua numbers are doubles: exact below 2^53, and
/// `tostring` would print large ones in exponent form). An optional string argument is `""`
/// when absent and `"+" + value` when present (`RedisMediaStore.optional`).
extension RedisMediaStore {
    enum Scripts {
        /// Key builders and the session operations several scripts share.
        static let prelude = #"""
        local prefix = ARGV[1]
        local function session_key(id) return prefix .. 'session:' .. id end
        local function viewer_key(viewer) return prefix .. 'viewer:' .. viewer end
        local function viewer_ended_key(viewer) return prefix .. 'viewer-ended:' .. viewer end
        local function playing_key(viewer, asset)
          return prefix .. 'viewer-asset:' .. #viewer .. ':' .. viewer .. ':' .. asset
        end
        local function first_play_key(viewer, asset)
          return prefix .. 'first-play:' .. #viewer .. ':' .. viewer .. ':' .. asset
        end
        local function asset_limit_key(asset) return prefix .. 'asset-limit:' .. asset end
        local function rate_key(key) return prefix .. 'rate:' .. key end
        local live_key = prefix .. 'sessions-live'
        local expiry_key = prefix .. 'sessions-expiry'
        local ended_key = prefix .. 'sessions-ended'
        local sequence_key = prefix .. 'sessions-sequence'
        local rate_index_key = prefix .. 'rate-index'

        local function optional(value)
          if value == '' then return nil end
          return string.sub(value, 2)
        end

        -- Floor division exact for the integers below 2^53 these scripts compute with.
        local function idiv(a, b)
          local q = math.floor(a / b)
          if q * b > a then q = q - 1 elseif (q + 1) * b <= a then q = q + 1 end
          return q
        end

        -- The sessions of a per-viewer index that are live at `now` (expiry > now).
        local function live_members(key, now)
          return redis.call('ZRANGEBYSCORE', key, '(' .. now, '+inf')
        end

        -- Record bounds (`RecordBounds`, the same rule as `SQLiteBoundedTable`). A record set is
        -- two sorted sets: `ended_index` (ended or released records, by that time) and
        -- `unended_index` (the others, by expiry: those at or below `now` have expired, so ended
        -- too). The oldest ended record is the first by time, then by id, over both; nil if none.
        -- Byte order, as sorted sets order their members (Lua's `<` follows the server's locale).
        local function bytes_before(a, b)
          for i = 1, math.min(#a, #b) do
            local x, y = string.byte(a, i), string.byte(b, i)
            if x ~= y then return x < y end
          end
          return #a < #b
        end

        local function oldest_ended(ended_index, unended_index, now)
          local ended = redis.call('ZRANGE', ended_index, 0, 0, 'WITHSCORES')
          local expired = redis.call('ZRANGEBYSCORE', unended_index, '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
          if #ended == 0 then return expired[1] end
          if #expired == 0 then return ended[1] end
          local a, b = tonumber(ended[2]), tonumber(expired[2])
          if a < b or (a == b and bytes_before(ended[1], expired[1])) then return ended[1] end
          return expired[1]
        end

        -- Drops the oldest ended records (`delete(id)`) while more than `keep` have ended, at most `batch`.
        local function drop_ended(ended_index, unended_index, now, keep, batch, delete)
          local excess = redis.call('ZCARD', ended_index) + redis.call('ZCOUNT', unended_index, '-inf', now) - keep
          excess = math.min(excess, batch)
          while excess > 0 do
            local id = oldest_ended(ended_index, unended_index, now)
            if not id then return end
            delete(id)
            excess = excess - 1
          end
        end

        -- Makes room for one more record in a set of `total` records bounded by `bound`: drops
        -- the oldest ended records of anyone, at most `batch`; false when only live ones are left.
        local function make_room(total, bound, ended_index, unended_index, now, batch, delete)
          local needed = math.min(total - bound + 1, batch)
          while needed > 0 do
            local id = oldest_ended(ended_index, unended_index, now)
            if not id then break end
            delete(id)
            total = total - 1
            needed = needed - 1
          end
          return total < bound
        end

        -- Deletes (`delete(id)`) at most `batch` members of each index scored below `cutoff`;
        -- returns how many: the bounded pruning of ended records.
        local function delete_before(indexes, cutoff, batch, delete)
          local deleted = 0
          for _, index in ipairs(indexes) do
            for _, id in ipairs(redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. cutoff, 'LIMIT', 0, batch)) do
              delete(id)
              deleted = deleted + 1
            end
          end
          return deleted
        end

        local function end_session(id, viewer, asset, now)
          redis.call('HSET', session_key(id), 'ended', now)
          redis.call('ZREM', viewer_key(viewer), id)
          redis.call('ZREM', playing_key(viewer, asset), id)
          redis.call('ZREM', live_key, id)
          redis.call('ZADD', ended_key, now, id)
          redis.call('ZADD', viewer_ended_key(viewer), now, id)
        end

        -- Ends the live sessions of one playback bound to `component`, but `except`; returns how many.
        local function end_same_component(viewer, asset, playback, component, except, now)
          local count = 0
          for _, id in ipairs(live_members(playing_key(viewer, asset), now)) do
            if id ~= except then
              local fields = redis.call('HMGET', session_key(id), 'playback', 'component')
              if fields[1] == playback and fields[2] == component then
                end_session(id, viewer, asset, now)
                count = count + 1
              end
            end
          end
          return count
        end

        -- Stores a session that is not stored yet, with its indexes; `ended` may be nil.
        local function insert_session(id, viewer, asset, component, protocol, playback, device,
                                      created, heartbeat, expires, ended)
          local key = session_key(id)
          redis.call('HSET', key, 'viewer', viewer, 'asset', asset, 'protocol', protocol,
                     'playback', playback, 'created', created, 'heartbeat', heartbeat,
                     'expires', expires, 'sequence', redis.call('INCR', sequence_key))
          if component then redis.call('HSET', key, 'component', component) end
          if device then redis.call('HSET', key, 'device', device) end
          redis.call('ZADD', expiry_key, expires, id)
          if ended then
            redis.call('HSET', key, 'ended', ended)
            redis.call('ZADD', ended_key, ended, id)
            redis.call('ZADD', viewer_ended_key(viewer), ended, id)
          else
            redis.call('ZADD', viewer_key(viewer), expires, id)
            redis.call('ZADD', playing_key(viewer, asset), expires, id)
            redis.call('ZADD', live_key, expires, id)
          end
        end

        -- Ends every live session of one viewer's playback of an asset; returns how many.
        local function end_playback_sessions(viewer, asset, playback, now)
          local count = 0
          for _, id in ipairs(live_members(playing_key(viewer, asset), now)) do
            if redis.call('HGET', session_key(id), 'playback') == playback then
              end_session(id, viewer, asset, now)
              count = count + 1
            end
          end
          return count
        end

        -- Removes a session and its index entries.
        local function delete_session(id)
          local key = session_key(id)
          local fields = redis.call('HMGET', key, 'viewer', 'asset')
          if fields[1] and fields[2] then
            redis.call('ZREM', viewer_key(fields[1]), id)
            redis.call('ZREM', viewer_ended_key(fields[1]), id)
            redis.call('ZREM', playing_key(fields[1], fields[2]), id)
          end
          redis.call('DEL', key)
          redis.call('ZREM', live_key, id)
          redis.call('ZREM', expiry_key, id)
          redis.call('ZREM', ended_key, id)
        end

        """#

        /// A script of `body` after the prelude (the playback store's scripts are built so too).
        static func script(_ body: String) -> RedisScript { RedisScript(prelude + body) }

        /// ARGV: prefix, id, viewer, asset, component?, protocol, playback, device?, now,
        /// expires, limit?, max live sessions per viewer, ended sessions kept per viewer,
        /// sessions kept in all, drop batch (`RecordBounds`). Returns `{'started', replaced}`,
        /// `{'limit'}`, `{'too-many'}`, `{'full'}` or `{'duplicate'}` (the id is stored already).
        static let startSession = script(#"""
        local id, viewer, asset = ARGV[2], ARGV[3], ARGV[4]
        local component, protocol, playback, device = optional(ARGV[5]), ARGV[6], ARGV[7], optional(ARGV[8])
        local now, expires, limit, max_live = ARGV[9], ARGV[10], optional(ARGV[11]), tonumber(ARGV[12])
        local keep, bound, batch = tonumber(ARGV[13]), tonumber(ARGV[14]), tonumber(ARGV[15])
        if redis.call('EXISTS', session_key(id)) == 1 then return {'duplicate'} end
        -- The sessions this one replaces (same playback and component) do not count against the
        -- viewer's bound: a restarted player is never locked out.
        local replaceable, joins, distinct, seen = 0, false, 0, {}
        for _, other in ipairs(live_members(playing_key(viewer, asset), now)) do
          local fields = redis.call('HMGET', session_key(other), 'playback', 'component')
          if fields[1] then
            if fields[1] == playback then
              joins = true
              if component and fields[2] == component then replaceable = replaceable + 1 end
            end
            if not seen[fields[1]] then
              seen[fields[1]] = true
              distinct = distinct + 1
            end
          end
        end
        local all = redis.call('ZCOUNT', viewer_key(viewer), '(' .. now, '+inf')
        if all - replaceable >= max_live then return {'too-many'} end
        if limit and not joins and distinct >= tonumber(limit) then return {'limit'} end
        if not make_room(redis.call('ZCARD', expiry_key), bound, ended_key, live_key, now, batch, delete_session) then
          return {'full'}
        end
        local replaced = 0
        if component then replaced = end_same_component(viewer, asset, playback, component, nil, now) end
        drop_ended(viewer_ended_key(viewer), viewer_key(viewer), now, keep, batch, delete_session)
        insert_session(id, viewer, asset, component, protocol, playback, device, now, now, expires, nil)
        return {'started', replaced}
        """#)

        /// ARGV: prefix, id. Returns the session hash (HGETALL), empty when unknown.
        static let session = script(#"""
        return redis.call('HGETALL', session_key(ARGV[2]))
        """#)

        /// ARGV: prefix, id, viewer, now, expires. Returns the extended session hash, or nil when
        /// it is unknown, ended, expired or someone else's.
        static let heartbeat = script(#"""
        local id, viewer, now, expires = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
        local key = session_key(id)
        local fields = redis.call('HMGET', key, 'viewer', 'asset', 'expires', 'ended')
        if fields[1] ~= viewer or fields[4] or tonumber(fields[3]) <= tonumber(now) then return false end
        redis.call('HSET', key, 'heartbeat', now, 'expires', expires)
        redis.call('ZADD', viewer_key(viewer), expires, id)
        redis.call('ZADD', playing_key(viewer, fields[2]), expires, id)
        redis.call('ZADD', live_key, expires, id)
        redis.call('ZADD', expiry_key, expires, id)
        return redis.call('HGETALL', key)
        """#)

        /// ARGV: prefix, id, viewer, now. Returns 1 when a live session of the viewer ended, else 0.
        static let endSession = script(#"""
        local id, viewer, now = ARGV[2], ARGV[3], ARGV[4]
        local fields = redis.call('HMGET', session_key(id), 'viewer', 'asset', 'expires', 'ended')
        if fields[1] ~= viewer or fields[4] or tonumber(fields[3]) <= tonumber(now) then return 0 end
        end_session(id, viewer, fields[2], now)
        return 1
        """#)

        /// ARGV: prefix, id, component, now. Returns how many other live sessions of the playback
        /// held the component and were ended, or -1 when the session is unknown or bound to
        /// another component.
        static let bindComponent = script(#"""
        local id, component, now = ARGV[2], ARGV[3], ARGV[4]
        local key = session_key(id)
        local fields = redis.call('HMGET', key, 'viewer', 'asset', 'playback', 'component')
        if not fields[1] or (fields[4] and fields[4] ~= component) then return -1 end
        redis.call('HSET', key, 'component', component)
        return end_same_component(fields[1], fields[2], fields[3], component, id, now)
        """#)

        /// ARGV: prefix, viewer, asset, playback, now. Returns the 0-based rank of the playback
        /// among the viewer's live playbacks of the asset (by earliest creation, then earliest
        /// insertion), or -1 when it has no live session.
        static let playbackRank = script(#"""
        local viewer, asset, playback, now = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
        local firsts, order = {}, {}
        for _, id in ipairs(live_members(playing_key(viewer, asset), now)) do
          local fields = redis.call('HMGET', session_key(id), 'playback', 'created', 'sequence')
          if fields[1] then
            local created, sequence = tonumber(fields[2]), tonumber(fields[3])
            local first = firsts[fields[1]]
            if not first then
              first = {name = fields[1], created = created, sequence = sequence}
              firsts[fields[1]] = first
              table.insert(order, first)
            else
              first.created = math.min(first.created, created)
              first.sequence = math.min(first.sequence, sequence)
            end
          end
        end
        table.sort(order, function(a, b)
          if a.created ~= b.created then return a.created < b.created end
          return a.sequence < b.sequence
        end)
        for index, first in ipairs(order) do
          if first.name == playback then return index - 1 end
        end
        return -1
        """#)

        /// ARGV: prefix, now. Live sessions of every viewer, counted on the live index.
        static let liveSessionCount = script(#"""
        return redis.call('ZCOUNT', live_key, '(' .. ARGV[2], '+inf')
        """#)

        /// ARGV: prefix, viewer, asset, playback, now. Ends every live session of the playback;
        /// returns how many.
        static let endPlaybackSessions = script(#"""
        return end_playback_sessions(ARGV[2], ARGV[3], ARGV[4], ARGV[5])
        """#)

        /// ARGV: prefix, viewer, asset. The first-play time, or nil.
        static let firstPlay = script(#"""
        return redis.call('GET', first_play_key(ARGV[2], ARGV[3]))
        """#)

        /// ARGV: prefix, viewer, asset, time. Sets the record unless one exists (SET NX); returns
        /// the kept time.
        static let recordFirstPlay = script(#"""
        local kept = redis.call('SET', first_play_key(ARGV[2], ARGV[3]), ARGV[4], 'NX', 'GET')
        if kept then return kept end
        return ARGV[4]
        """#)

        /// ARGV: prefix, viewer, asset, time. Migration: stores the record unless an earlier (or
        /// equal) one exists; returns the kept time.
        static let importFirstPlay = script(#"""
        local key = first_play_key(ARGV[2], ARGV[3])
        local kept = redis.call('GET', key)
        if kept and tonumber(kept) <= tonumber(ARGV[4]) then return kept end
        redis.call('SET', key, ARGV[4])
        return ARGV[4]
        """#)

        /// ARGV: prefix, asset. `{limit or false, updated}`, or an empty array when never set.
        static let assetStreamLimit = script(#"""
        local fields = redis.call('HMGET', asset_limit_key(ARGV[2]), 'limit', 'updated')
        if not fields[2] then return {} end
        return {fields[1], fields[2]}
        """#)

        /// ARGV: prefix, asset, limit?, now.
        static let setAssetStreamLimit = script(#"""
        local key, limit = asset_limit_key(ARGV[2]), optional(ARGV[3])
        redis.call('HSET', key, 'updated', ARGV[4])
        if limit then redis.call('HSET', key, 'limit', limit) else redis.call('HDEL', key, 'limit') end
        return 1
        """#)

        /// ARGV: prefix, key, capacity (millitokens), now, refill period (ms). Takes one token
        /// (1000 millitokens) from a bucket refilled continuously by `capacity` per refill period
        /// (`RateBucket`); returns 0 when allowed, else the whole seconds until a token is back.
        /// The same integer arithmetic as `SQLiteMediaStore.consumeRateToken`.
        static let consumeRateToken = script(#"""
        local key, capacity, now, period = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
        local bucket = rate_key(key)
        local fields = redis.call('HMGET', bucket, 'millitokens', 'updated')
        local tokens = capacity
        if fields[1] and fields[2] then
          local elapsed = math.max(0, now - tonumber(fields[2]))
          local refill = capacity
          if elapsed < period then refill = idiv(elapsed * capacity, period) end
          tokens = math.min(capacity, tonumber(fields[1]) + refill)
        end
        local retry = 0
        if tokens >= 1000 then
          tokens = tokens - 1000
        else
          local wait = idiv((1000 - tokens) * period + capacity - 1, capacity)
          retry = math.max(1, idiv(wait + 999, 1000))
        end
        redis.call('HSET', bucket, 'millitokens', string.format('%d', tokens), 'updated', ARGV[4])
        redis.call('ZADD', rate_index_key, ARGV[4], key)
        return retry
        """#)

        /// ARGV: prefix, session cutoff, rate cutoff, batch. Deletes at most `batch` sessions
        /// that expired before the cutoff, `batch` that ended before it, and `batch` rate buckets
        /// untouched since the rate cutoff; returns how many keys it deleted.
        static let prune = script(#"""
        local cutoff, rate_cutoff, batch = ARGV[2], ARGV[3], ARGV[4]
        local deleted = delete_before({expiry_key, ended_key}, cutoff, batch, delete_session)
        for _, key in ipairs(redis.call('ZRANGEBYSCORE', rate_index_key, '-inf', '(' .. rate_cutoff, 'LIMIT', 0, batch)) do
          redis.call('DEL', rate_key(key))
          redis.call('ZREM', rate_index_key, key)
          deleted = deleted + 1
        end
        return deleted
        """#)

        /// ARGV: prefix, id, viewer, asset, component?, protocol, playback, device?, created,
        /// heartbeat, expires, ended?. Migration: stores the session unless its id is stored;
        /// returns 1 when stored, 0 when it was there.
        static let importSession = script(#"""
        if redis.call('EXISTS', session_key(ARGV[2])) == 1 then return 0 end
        insert_session(ARGV[2], ARGV[3], ARGV[4], optional(ARGV[5]), ARGV[6], ARGV[7], optional(ARGV[8]),
                       ARGV[9], ARGV[10], ARGV[11], optional(ARGV[12]))
        return 1
        """#)
    }
}
