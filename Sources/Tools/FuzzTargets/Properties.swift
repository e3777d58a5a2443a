import FoundationEssentials
import HealthCodec
import HealthEngine
import HealthModel
import Journal
import ScenarioLanguage
import Wire

/// What each decoding target guarantees beyond not crashing, checked on every input (``FuzzTargets/run(_:_:)``
/// stops on a finding, so libFuzzer reports it as a crash; `FuzzTests` asserts there is none):
///
/// - **frames**: the stream decoder gives the same frames and the same error however the bytes are split, and the
///   frames it returns are exactly the stream's prefix re-framed.
/// - **messages**: a message that decodes re-encodes to bytes that decode and re-encode to the same bytes; a
///   rejected one is a ``DecodeError`` at an offset inside the input.
/// - **journal**: the intact records are contiguous from the file header to `validEnd`, damage (if any) starts
///   there, re-framing their payloads reproduces those bytes, cutting the file at `validEnd` (what recovery does to
///   a torn tail) leaves a journal that scans clean to the same records, and an event that fails to decode is
///   located inside its record.
/// - **snapshot**: a refused snapshot is an error at an offset inside the file.
/// - **scenario**: a file that does not parse gets at least one diagnostic, each at a line and column inside the
///   file.
/// - **export**: the structured export the bytes build (``ExportFuzz``) reads to a result or a typed, located
///   ``ExportError`` — never a trap — and one built with nothing mutated reads without an error.
package enum FuzzProperties {
  /// The first property `data` breaks for `target`; nil when every property holds (or the target has none here:
  /// `requests` checks its own, ``RequestFuzz/finding(_:)``).
  package static func finding(_ target: String, _ data: [UInt8]) -> String? {
    switch target {
    case "frames": frames(data)
    case "messages": messages(data)
    case "journal": journal(data)
    case "snapshot": snapshot(data)
    case "scenario": scenario(data)
    case "export": ExportFuzz.finding(data)
    default: nil
    }
  }

  /// Whether `target` accepts `data` as a valid input: the frames decode with nothing left over, the message
  /// decodes (as a client frame or a peer message), the journal scans clean with at least one record, the snapshot
  /// restores, the scenario parses. Every seed input must be accepted, or the fuzzer would start from junk.
  package static func accepts(_ target: String, _ data: [UInt8]) -> Bool {
    switch target {
    case "frames":
      let outcome = decodeFrames(data, pieces: [data.count])
      return outcome.failure == nil && !outcome.frames.isEmpty
    case "messages": return (try? Frame.decode(data)) != nil || (try? PeerMessage.decode(data)) != nil
    case "journal":
      let framing =
        (data.first ?? 0) & 2 == 2 ? JournalFormat.Framing.version1(device: 1) : FuzzTargets.journalFraming
      return journalBytes(data, framing).withUnsafeBytes { buffer in
        let scan = JournalFormat.scan(buffer, framing: framing)
        return scan.damage == nil && !scan.records.isEmpty
      }
    case "snapshot":
      return (try? snapshotBytes(data).withUnsafeBytes { try SnapshotFile.decode($0, device: .watch, path: "fuzz") })
        != nil
    case "scenario":
      if case .success = ScenarioParser.parse(bytes: data, file: "fuzz.scenario", loader: .none) { return true }
      return false
    case "export": return ExportFuzz.accepts(data)
    default: return false
    }
  }

  /// What a frame decoder makes of a stream: the frames, then the error (a too-large header, or a truncated
  /// frame at the end), if any.
  struct FrameOutcome: Equatable {
    var frames: [[UInt8]] = []
    var failure: FrameDecoder.Failure?
  }

  /// Decodes `data` appended in pieces of the given sizes (cycled), with the fuzz target's 4096-byte limit.
  static func decodeFrames(_ data: [UInt8], pieces: [Int]) -> FrameOutcome {
    var decoder = FrameDecoder(maxFrameLength: 4096)
    var outcome = FrameOutcome()
    var offset = 0
    var piece = 0
    while offset < data.count {
      let size = min(data.count - offset, max(1, pieces[piece % pieces.count]))
      piece += 1
      decoder.append(Array(data[offset..<offset + size]))
      offset += size
      do {
        while let frame = try decoder.next() { outcome.frames.append(frame) }
      } catch {
        outcome.failure = error
        return outcome
      }
    }
    do { try decoder.finish() } catch { outcome.failure = error }
    return outcome
  }

  static func frames(_ data: [UInt8]) -> String? {
    let whole = decodeFrames(data, pieces: [data.count])
    let split = [[1], [3, 1, 7], [UInt(data.first ?? 7)].map { 1 + Int($0 % 97) }]
    for pieces in split {
      let outcome = decodeFrames(data, pieces: pieces)
      if outcome != whole { return "frames: split into pieces of \(pieces), the stream decodes differently" }
    }
    let reframed = whole.frames.flatMap { FrameDecoder.frame($0) }
    if Array(data.prefix(reframed.count)) != reframed { return "frames: the frames are not the stream's prefix" }
    return nil
  }

  static func messages(_ data: [UInt8]) -> String? {
    func located(_ error: DecodeError, _ what: String) -> String? {
      (0...data.count).contains(error.offset)
        ? nil : "\(what): the error '\(error)' is outside the \(data.count)-byte input"
    }
    do {
      let once = try Frame.decode(data).encoded()
      guard (try? Frame.decode(once).encoded()) == once else {
        return "messages: a decoded frame does not re-encode stably"
      }
    } catch {
      if let problem = located(error, "messages (client)") { return problem }
    }
    do {
      let once = try PeerMessage.decode(data).encoded()
      guard (try? PeerMessage.decode(once).encoded()) == once else {
        return "messages: a decoded peer message does not re-encode stably"
      }
    } catch {
      if let problem = located(error, "messages (peer)") { return problem }
    }
    return nil
  }

  static func journal(_ data: [UInt8]) -> String? {
    let framing =
      (data.first ?? 0) & 2 == 2 ? JournalFormat.Framing.version1(device: 1) : FuzzTargets.journalFraming
    return journalBytes(data, framing).withUnsafeBytes { buffer -> String? in
      let scan = JournalFormat.scan(buffer, framing: framing)
      var end = framing.headerSize
      var reframed: [UInt8] = []
      for record in scan.records {
        guard record.offset == end + JournalFormat.recordHeaderSize else {
          return "journal: the record at \(record.offset) does not follow the one ending at \(end)"
        }
        let payload = UnsafeRawBufferPointer(rebasing: buffer[record.offset..<record.offset + record.length])
        framing.appendRecord(payload, to: &reframed)
        end = record.offset + record.length
        var reader = BinaryReader(payload, reportBase: record.offset)
        do throws(DecodeError) { _ = try reader.event() } catch {
          guard (record.offset...end).contains(error.offset) else {
            return "journal: an event error at \(error.offset) is outside its record \(record.offset)..<\(end)"
          }
        }
      }
      guard scan.validEnd == end else { return "journal: validEnd \(scan.validEnd), records end at \(end)" }
      if let damage = scan.damage, damage.offset != end {
        return "journal: damage at \(damage.offset), after the intact records' end \(end)"
      }
      if scan.damage == nil, end != buffer.count { return "journal: undamaged, yet \(buffer.count - end) bytes left" }
      if Array(buffer[framing.headerSize..<end]) != reframed {
        return "journal: re-framing the intact payloads does not give back their bytes"
      }
      let cut = JournalFormat.scan(UnsafeRawBufferPointer(rebasing: buffer[..<end]), framing: framing)
      if cut.damage != nil || cut.records.map(\.offset) != scan.records.map(\.offset) {
        return "journal: cut at validEnd, the journal does not scan clean to the same records"
      }
      return nil
    }
  }

  /// The journal file the `journal` target reads (``FuzzTargets/journal(_:)``): the first byte picks raw records
  /// (bit 0 clear) or `[u16 length][payload]…` framed here, and the version (bit 1).
  static func journalBytes(_ data: [UInt8], _ framing: JournalFormat.Framing) -> [UInt8] {
    var bytes = framing.fileHeader
    guard let mode = data.first, mode & 1 == 1 else { return bytes + data.dropFirst() }
    var i = 1
    while i + 2 <= data.count {
      let length = Int(data[i]) | Int(data[i + 1]) << 8
      i += 2
      let end = min(data.count, i + length)
      data[i..<end].withUnsafeBytes { framing.appendRecord($0, to: &bytes) }
      i = end
    }
    return bytes
  }

  /// The snapshot file the `snapshot` target reads (``FuzzTargets/snapshot(_:)``): the rest of the bytes as a
  /// whole file (first byte even) or as a body framed here (odd).
  static func snapshotBytes(_ data: [UInt8]) -> [UInt8] {
    guard let mode = data.first, mode & 1 == 1 else { return Array(data.dropFirst()) }
    return SnapshotFile.file(header: SnapshotFile.header(device: .watch), body: Array(data.dropFirst()))
  }

  static func snapshot(_ data: [UInt8]) -> String? {
    let bytes = snapshotBytes(data)
    let refusal = bytes.withUnsafeBytes { buffer -> SnapshotError? in
      do throws(SnapshotError) {
        _ = try SnapshotFile.decode(buffer, device: .watch, path: "fuzz")
        return nil
      } catch { return error }
    }
    guard let refusal else { return nil }
    guard case .invalid(let path, let offset, _) = refusal else { return "snapshot: decoding did I/O: \(refusal)" }
    guard path == "fuzz", (0...bytes.count).contains(offset) else {
      return "snapshot: the error '\(refusal)' is outside the \(bytes.count)-byte file"
    }
    return nil
  }

  static func scenario(_ data: [UInt8]) -> String? {
    guard case .failure(let diagnostics) = ScenarioParser.parse(bytes: data, file: "fuzz.scenario", loader: .none)
    else {
      return nil
    }
    guard !diagnostics.items.isEmpty else { return "scenario: a file was refused with no diagnostic" }
    _ = diagnostics.description  // rendering each diagnostic (its source line and caret) must not trap either
    let lines = data.split(separator: 10, omittingEmptySubsequences: false)
    for diagnostic in diagnostics.items {
      let location = diagnostic.location
      guard location.file == "fuzz.scenario", (1...lines.count).contains(location.line),
        (1...lines[location.line - 1].count + 1).contains(location.column)
      else { return "scenario: '\(diagnostic.location)' is not inside the \(lines.count)-line file" }
    }
    return nil
  }
}
