import Client
import Foundation

/// `player play --json`: each progress event, then the result, as one compact JSON object per
/// line on stderr (stdout carries only media). No token, key or session id is ever included.
enum ProgressJSON {
    static func line(_ event: PlaybackEvent) -> String {
        switch event {
        case .admitted(let checks, let components, let segments):
            return encode(["event": "admitted", "profile": "fps-v2", "checks": checks, "components": components, "segments": segments])
        case .tdfHLS(let components, let segments):
            return encode(["event": "tdf-hls", "components": components, "segments": segments])
        case .certificate(let bytes):
            return encode(["event": "certificate", "configured": bytes != nil, "bytes": bytes ?? 0])
        case .sessionStarted(let component):
            return encode(["event": "session-started", "component": component])
        case .keyDelivered(let component, let seconds):
            return encode(["event": "key-delivered", "component": component, "ms": PlayVerb.milliseconds(seconds)])
        case .segmentKeysDelivered(let count, let seconds):
            return encode(["event": "segment-keys-delivered", "count": count, "ms": PlayVerb.milliseconds(seconds)])
        case .rateLimited(let seconds):
            return encode(["event": "rate-limited", "retryAfter": seconds])
        case .firstClearByte(let seconds):
            return encode(["event": "first-clear-byte", "ms": PlayVerb.milliseconds(seconds)])
        case .finished(let bytes, let seconds):
            return encode(["event": "finished", "bytes": Int(bytes), "ms": PlayVerb.milliseconds(seconds)])
        case .liveStarted(let sequence, let fromStart):
            return encode(["event": "live-started", "sequence": sequence, "fromStart": fromStart])
        case .liveSegment(let sequence, let seconds, let latency):
            var object: [String: Any] = ["event": "live-segment", "sequence": sequence, "mediaMs": PlayVerb.milliseconds(seconds)]
            if let latency { object["latencyMs"] = PlayVerb.milliseconds(latency) }
            return encode(object)
        case .livePart(let part, let sequence):
            return encode(["event": "live-part", "part": part, "sequence": sequence])
        case .liveEnded(let segments, let seconds, let median, let maximum):
            var object: [String: Any] = ["event": "live-ended", "segments": segments, "mediaMs": PlayVerb.milliseconds(seconds)]
            if let median { object["medianLatencyMs"] = PlayVerb.milliseconds(median) }
            if let maximum { object["maxLatencyMs"] = PlayVerb.milliseconds(maximum) }
            return encode(object)
        }
    }

    static func result(_ error: PlaybackError?, bytesWritten: UInt64? = nil) -> String {
        guard let error else {
            var object: [String: Any] = ["event": "result", "ok": true]
            if let bytesWritten { object["bytesWritten"] = Int(bytesWritten) }
            return encode(object)
        }
        var object: [String: Any] = ["event": "result", "ok": false, "code": error.code.rawValue, "reason": error.reason]
        if let status = error.status { object["status"] = status }
        if let check = error.check { object["check"] = check }
        if let refusal = error.refusal { object["refusal"] = refusal.code }
        return encode(object)
    }

    static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
