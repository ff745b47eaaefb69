import MediaDRMJSON
import Foundation

/// The project's Python (the venv `make deps` prepares, holding otdf-python and the independent
/// checkers) and the scripts in `Tools/python/`.
enum ProjectPython {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// MEDIADRM_PYTHON, else `<repo root>/.venv/bin/python`; a missing one is an error naming the
    /// fix, never a skip.
    static func interpreter() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["MEDIADRM_PYTHON"], !path.isEmpty, FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let venv = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw Failure("no Python interpreter with otdf-python (MEDIADRM_PYTHON unset and \(venv) missing): run make deps")
        }
        return venv
    }

    static func script(_ name: String) -> String {
        repositoryRoot.appendingPathComponent("Tools/python/\(name)").path
    }
}

/// The OpenTDF KAS protobuf vectors, generated when first used by `Tools/python/opentdf_proto_vectors.py`
/// from the protobuf classes otdf-python ships: wire bytes (hex) per message and the rewrap
/// response as the runtime's `json_format` writes it.
enum OpenTDFProtoVectors {
    static let generated: Result<[String: String], ProjectPython.Failure> = {
        do {
            let result = try runProcess(try ProjectPython.interpreter(), [ProjectPython.script("opentdf_proto_vectors.py")])
            guard result.status == 0 else {
                return .failure(ProjectPython.Failure("opentdf_proto_vectors.py exited \(result.status): \(result.stderr)"))
            }
            guard case .object(let object) = try JSONParser.parse(result.stdout) else {
                return .failure(ProjectPython.Failure("opentdf_proto_vectors.py did not print a JSON object"))
            }
            var vectors: [String: String] = [:]
            for (name, value) in object {
                guard let text = value.string else { return .failure(ProjectPython.Failure("vector \(name) is not a string")) }
                vectors[name] = text
            }
            return .success(vectors)
        } catch let failure as ProjectPython.Failure {
            return .failure(failure)
        } catch {
            return .failure(ProjectPython.Failure("opentdf_proto_vectors.py could not run: \(error)"))
        }
    }()

    /// One vector by name; an error when generation failed or the script printed no such member.
    static func vector(_ name: String) throws -> String {
        guard let value = try generated.get()[name] else {
            throw ProjectPython.Failure("opentdf_proto_vectors.py printed no \(name)")
        }
        return value
    }
}
