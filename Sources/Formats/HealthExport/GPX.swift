import FoundationEssentials
import HealthModel

/// Reads the GPX file of a route (what Apple's exports write under `workout-routes/`): every `trkpt` of every
/// `trkseg` of every `trk`, with `lat` and `lon`, `ele`, `time` and the `extensions` Apple writes (`speed`,
/// `course`, `hAcc`, `vAcc`; HealthPair's `sAcc` and `cAcc` for the speed and course accuracies). Element names are
/// matched without their namespace prefix. A point without `time` is refused (a route fix has a timestamp), as is a
/// file of more than ``ExportReader/maxRouteLocations`` points; errors are located.
package struct GPXReader: ~Copyable {
  private var scanner: XMLScanner

  /// Reads `input`, naming `file` in errors.
  package init(_ input: any ByteInput, file: String) {
    scanner = XMLScanner(input, file: file, bufferSize: 1 << 16)
    scanner.captureText = true
  }

  /// A point's value elements.
  private enum Field {
    case elevation, time, speed, course, horizontalAccuracy, verticalAccuracy, speedAccuracy, courseAccuracy
  }

  /// The route's fixes, in timestamp order (stable).
  /// - Throws: ``ExportError`` at the first problem.
  package mutating func locations() throws(ExportError) -> [RouteLocation] {
    guard try scanner.next() == .startTag, localNameIs("gpx") else {
      throw ExportError(.notAnExport, at: scanner.tokenLocation, "the root element is '<\(scanner.name)>', not '<gpx>'")
    }
    var fixes: [RouteLocation] = []
    var point: RouteLocation?
    var pointLocation = scanner.tokenLocation
    var hasTime = false
    var pointDepth = 0
    var field: Field?
    if scanner.isSelfClosing { return fixes }
    while true {
      switch try scanner.next() {
      case .endOfDocument:
        return Self.ordered(fixes)
      case .startTag:
        field = nil
        if localNameIs("trkpt") {
          pointLocation = scanner.tokenLocation
          pointDepth = scanner.depth
          guard let latIndex = scanner.attribute("lat"), let lonIndex = scanner.attribute("lon") else {
            throw ExportError(.notAnExport, at: pointLocation, "a '<trkpt>' needs 'lat' and 'lon' attributes")
          }
          guard fixes.count < ExportReader.maxRouteLocations else {
            throw ExportError(
              .invalidRecord, at: pointLocation, "a route of more than \(ExportReader.maxRouteLocations) points")
          }
          point = RouteLocation(
            timestamp: .distantPast, latitude: try number(latIndex), longitude: try number(lonIndex),
            horizontalAccuracy: -1, verticalAccuracy: -1)
          try ExportReader.checkCoordinates(point!, at: pointLocation)
          hasTime = false
          if scanner.isSelfClosing {
            throw ExportError(.invalidRecord, at: pointLocation, "a '<trkpt>' without a '<time>'")
          }
        } else if point != nil, !scanner.isSelfClosing {
          field = Self.field(named: localName())
          scanner.clearText()
        }
      case .endTag:
        if let current = field, var fix = point {
          field = nil
          let text = scanner.text
          guard !scanner.textOverflowed else {
            throw ExportError(
              .value, at: scanner.tokenLocation, "a value longer than \(XMLScanner.maxTextLength) bytes")
          }
          try assign(current, text: text, to: &fix)
          if current == .time { hasTime = true }
          point = fix
        } else if let fix = point, scanner.depth < pointDepth {
          guard hasTime else { throw ExportError(.invalidRecord, at: pointLocation, "a '<trkpt>' without a '<time>'") }
          fixes.append(fix)
          point = nil
        }
      }
    }
  }

  private static func field(named name: String) -> Field? {
    switch name {
    case "ele": .elevation
    case "time": .time
    case "speed": .speed
    case "course": .course
    case "hAcc", "hacc": .horizontalAccuracy
    case "vAcc", "vacc": .verticalAccuracy
    case "sAcc": .speedAccuracy
    case "cAcc": .courseAccuracy
    default: nil
    }
  }

  private func assign(_ field: Field, text: [UInt8], to fix: inout RouteLocation) throws(ExportError) {
    let trimmed = Array(
      text.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }.reversed().drop {
        $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D
      }.reversed())
    let shown = String(decoding: trimmed, as: UTF8.self)
    if field == .time {
      guard let seconds = GPXTime.parse(shown) else {
        throw ExportError(
          .date, at: scanner.tokenLocation, "'\(shown)' is not a GPX time like 2023-01-01T07:30:00Z")
      }
      fix.timestamp = Date(timeIntervalSinceReferenceDate: seconds)
      return
    }
    guard let value = trimmed.withUnsafeBufferPointer({ ExportNumber.parse($0) }), value.isFinite else {
      throw ExportError(.value, at: scanner.tokenLocation, "'\(shown)' is not a number")
    }
    switch field {
    case .elevation: fix.altitude = value
    case .time: break
    case .speed: fix.speed = value
    case .course: fix.course = value
    case .horizontalAccuracy: fix.horizontalAccuracy = value
    case .verticalAccuracy: fix.verticalAccuracy = value
    case .speedAccuracy: fix.speedAccuracy = value
    case .courseAccuracy: fix.courseAccuracy = value
    }
  }

  private mutating func number(_ index: Int) throws(ExportError) -> Double {
    let bytes = scanner.value(index)
    guard let value = ExportNumber.parse(bytes), value.isFinite else {
      throw ExportError(
        .value, at: scanner.valueLocation(index), "'\(String(decoding: bytes, as: UTF8.self))' is not a number")
    }
    return value
  }

  private func localName() -> String {
    let name = scanner.name
    return name.split(separator: ":").last.map(String.init) ?? name
  }

  private func localNameIs(_ expected: String) -> Bool { localName() == expected }

  private static func ordered(_ fixes: [RouteLocation]) -> [RouteLocation] {
    guard zip(fixes, fixes.dropFirst()).contains(where: { $0.timestamp > $1.timestamp }) else { return fixes }
    return fixes.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
      .map(\.element)
  }
}

/// GPX times: ISO 8601 (`2023-01-01T07:30:00Z`, a fraction and a `±HH:MM` offset allowed).
package enum GPXTime {
  /// Seconds since the reference date, or nil.
  package static func parse(_ text: String) -> Double? {
    var bytes = Array(text.utf8)
    guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
    bytes[10] = 0x20
    var suffix: [UInt8]
    if bytes.last == UInt8(ascii: "Z") {
      bytes.removeLast()
      suffix = Array(" +0000".utf8)
    } else if bytes.count >= 25, bytes[bytes.count - 3] == UInt8(ascii: ":"),
      bytes[bytes.count - 6] == UInt8(ascii: "+") || bytes[bytes.count - 6] == UInt8(ascii: "-")
    {
      let offset = Array(bytes[(bytes.count - 6)...])
      bytes.removeLast(6)
      suffix = [0x20, offset[0], offset[1], offset[2], offset[4], offset[5]]
    } else {
      return nil
    }
    bytes += suffix
    return bytes.withUnsafeBufferPointer { ExportDate.parse($0) }
  }

  /// `seconds` as a GPX time in UTC, with a fraction only when there is one.
  package static func format(_ seconds: Double) -> String {
    let text = ExportDate.format(seconds)  // 2023-01-01 07:30:00[.5] +0000
    return text.prefix(10) + "T" + text.dropFirst(11).dropLast(6) + "Z"
  }
}

/// Writes a route as the GPX file Apple's exports hold: one `trk` of one `trkseg`, one `trkpt` per fix with `ele`,
/// `time` and, in `extensions`, `speed`, `course`, `hAcc`, `vAcc` (and HealthPair's `sAcc` and `cAcc` unless the
/// accuracy is -1, the reader's default) — every field of a ``RouteLocation``, numbers in the shortest form that
/// reads back exactly.
package enum GPXWriter {
  /// The GPX document for `route`; its name is the route's start in the local time of `offsetSeconds`.
  package static func document(for route: WorkoutRoute, offsetSeconds: Int = 0) -> [UInt8] {
    func number(_ value: Double) -> String { ExportNumber.format(value) }
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<gpx version=\"1.1\" creator=\"HealthPair\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
    out += " <metadata><time>\(GPXTime.format(route.start.timeIntervalSinceReferenceDate))</time></metadata>\n"
    let name = ExportDate.format(route.start.timeIntervalSinceReferenceDate, offsetSeconds: offsetSeconds)
    out += " <trk>\n  <name>Route \(name.prefix(16))</name>\n  <trkseg>\n"
    for fix in route.locations {
      out += "   <trkpt lon=\"\(number(fix.longitude))\" lat=\"\(number(fix.latitude))\">"
      out += "<ele>\(number(fix.altitude))</ele>"
      out += "<time>\(GPXTime.format(fix.timestamp.timeIntervalSinceReferenceDate))</time>"
      out += "<extensions><speed>\(number(fix.speed))</speed><course>\(number(fix.course))</course>"
      out += "<hAcc>\(number(fix.horizontalAccuracy))</hAcc><vAcc>\(number(fix.verticalAccuracy))</vAcc>"
      if fix.speedAccuracy != -1 { out += "<sAcc>\(number(fix.speedAccuracy))</sAcc>" }
      if fix.courseAccuracy != -1 { out += "<cAcc>\(number(fix.courseAccuracy))</cAcc>" }
      out += "</extensions></trkpt>\n"
    }
    out += "  </trkseg>\n </trk>\n</gpx>\n"
    return Array(out.utf8)
  }
}
