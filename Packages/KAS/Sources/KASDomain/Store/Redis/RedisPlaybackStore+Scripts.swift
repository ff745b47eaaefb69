import KASRedis

/// The Lua scripts of `RedisPlaybackStore` (data model in its header comment), built on the
/// media store's prelude (`RedisMediaStore.Scripts`): the same key prefix argument, the same
/// record-bound functions (`drop_ended`, `make_room`), and `end_playback_sessions`, so releasing
/// a playback ends its media sessions in the same script.
extension RedisPlaybackStore {
    enum Scripts {
        /// Key builders of the playbacks and their removal, after the media prelude.
        static let prelude = #"""
        local function playback_key(id) return prefix .. 'playback:' .. id end
        local playbacks_live = prefix .. 'playbacks-live'
        local playbacks_released = prefix .. 'playbacks-released'
        local function viewer_playbacks(viewer) return prefix .. 'viewer-playbacks:' .. viewer end
        local function viewer_playbacks_released(viewer) return prefix .. 'viewer-playbacks-released:' .. viewer end

        -- Stores a playback that is not stored yet, with its indexes; `released` may be nil.
        local function insert_playback(id, viewer, sealed, created, expires, released)
          redis.call('HSET', playback_key(id), 'sealed', sealed, 'viewer', viewer, 'created_ms', created,
                     'expires_ms', expires)
          if released then
            redis.call('HSET', playback_key(id), 'released_ms', released)
            redis.call('ZADD', playbacks_released, released, id)
            redis.call('ZADD', viewer_playbacks_released(viewer), released, id)
          else
            redis.call('ZADD', playbacks_live, expires, id)
            redis.call('ZADD', viewer_playbacks(viewer), expires, id)
          end
        end

        -- Removes a playback and its index entries.
        local function delete_playback(id)
          local viewer = redis.call('HGET', playback_key(id), 'viewer')
          if viewer then
            redis.call('ZREM', viewer_playbacks(viewer), id)
            redis.call('ZREM', viewer_playbacks_released(viewer), id)
          end
          redis.call('DEL', playback_key(id))
          redis.call('ZREM', playbacks_live, id)
          redis.call('ZREM', playbacks_released, id)
        end

        """#

        private static func script(_ body: String) -> RedisScript { RedisMediaStore.Scripts.script(prelude + body) }

        /// ARGV: prefix, id hash, viewer, sealed, now, expires, max live per viewer, ended kept
        /// per viewer, playbacks kept in all, drop batch (`RecordBounds`). Returns `'inserted'`,
        /// `'too-many'`, `'full'` or `'duplicate'`.
        static let insert = script(#"""
        local id, viewer, sealed, now, expires = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
        local max_live, keep, bound, batch = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
        if redis.call('EXISTS', playback_key(id)) == 1 then return 'duplicate' end
        if redis.call('ZCOUNT', viewer_playbacks(viewer), '(' .. now, '+inf') >= max_live then return 'too-many' end
        local total = redis.call('ZCARD', playbacks_live) + redis.call('ZCARD', playbacks_released)
        if not make_room(total, bound, playbacks_released, playbacks_live, now, batch, delete_playback) then return 'full' end
        drop_ended(viewer_playbacks_released(viewer), viewer_playbacks(viewer), now, keep, batch, delete_playback)
        insert_playback(id, viewer, sealed, now, expires, nil)
        return 'inserted'
        """#)

        /// ARGV: prefix, id hash.
        static let remove = script(#"""
        delete_playback(ARGV[2])
        return 1
        """#)

        /// ARGV: prefix, id hash, viewer, asset, the sessions' playback key, now. Releases a live
        /// playback of the viewer and ends its live media sessions; returns how many sessions,
        /// or -1 when it is not live (or another viewer's). A record written before playbacks
        /// had a `viewer` field and indexes (it had a TTL instead; the caller checked its viewer
        /// in the seal) is taken into the indexes, its TTL dropped.
        static let release = script(#"""
        local id, viewer, asset, playback, now = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
        local f = redis.call('HMGET', playback_key(id), 'expires_ms', 'released_ms', 'viewer')
        if not f[1] or f[2] or tonumber(f[1]) <= tonumber(now) or (f[3] and f[3] ~= viewer) then return -1 end
        if not f[3] then
          redis.call('PERSIST', playback_key(id))
          redis.call('HSET', playback_key(id), 'viewer', viewer, 'created_ms', now)
        end
        redis.call('HSET', playback_key(id), 'released_ms', now)
        redis.call('ZREM', playbacks_live, id)
        redis.call('ZREM', viewer_playbacks(viewer), id)
        redis.call('ZADD', playbacks_released, now, id)
        redis.call('ZADD', viewer_playbacks_released(viewer), now, id)
        return end_playback_sessions(viewer, asset, playback, now)
        """#)

        /// ARGV: prefix, id hash, new end. Never shortens, never revives a released playback.
        static let extend = script(#"""
        local id, expires = ARGV[2], ARGV[3]
        local f = redis.call('HMGET', playback_key(id), 'expires_ms', 'released_ms', 'viewer')
        if not f[1] or f[2] or tonumber(expires) <= tonumber(f[1]) then return 0 end
        redis.call('HSET', playback_key(id), 'expires_ms', expires)
        redis.call('ZADD', playbacks_live, expires, id)
        if f[3] then redis.call('ZADD', viewer_playbacks(f[3]), expires, id) end
        return 1
        """#)

        /// ARGV: prefix, cutoff, batch. Deletes at most `batch` playbacks released before the
        /// cutoff and as many that expired before it; returns how many.
        static let prune = script(#"""
        return delete_before({playbacks_released, playbacks_live}, ARGV[2], ARGV[3], delete_playback)
        """#)

        /// ARGV: prefix, id hash, viewer, sealed, created, expires, released?. Migration: stores
        /// the playback unless its id is stored; returns 1 when stored, 0 when it was there.
        static let importPlayback = script(#"""
        if redis.call('EXISTS', playback_key(ARGV[2])) == 1 then return 0 end
        insert_playback(ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], optional(ARGV[7]))
        return 1
        """#)

        /// ARGV: prefix, a fresh key (base64), kept only when none is stored. Returns the stored key.
        static let licenseURLKey = script(#"""
        local key = prefix .. 'delivery:license-url-key'
        redis.call('SET', key, ARGV[2], 'NX')
        return redis.call('GET', key)
        """#)
    }
}
