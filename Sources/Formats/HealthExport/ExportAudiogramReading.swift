import FoundationEssentials
import HealthModel

/// `Audiogram` elements: the audiogram's attributes as a record's (without value and unit), its `MetadataEntry`s
/// and its `SensitivityPoint`s, each point checked as `HKAudiogramSensitivityPoint`'s initializer checks it.
extension ExportReader {
  /// The `type` an `Audiogram` element carries (`HKAudiogramSampleType`'s identifier).
  package static let audiogramTypeName = "HKDataTypeIdentifierAudiogram"

  /// Reads the `Audiogram` the scanner is at into ``pendingAudiograms`` (one of another `type` is skipped and
  /// reported, as an unknown record type is).
  ///
  /// - Each `SensitivityPoint` becomes an ``AudiogramPoint``: `frequencyValue` in `frequencyUnit` (any unit of
  ///   frequency, converted to hertz), then one ``AudiogramTest`` per ear with a value (`leftEarValue`,
  ///   `rightEarValue`, in `dBHL`; no unit written reads as dBHL), left first, with iOS 18.1's `…Masked` (`1`/`0`,
  ///   `true`/`false`, `YES`/`NO`) and clamping bounds; an ear's masked and clamping attributes without its value
  ///   are ignored.
  /// - Points keep the file's order: a point out of ascending order, the 31st point, a point with neither ear or a
  ///   value out of HealthKit's ranges is a located error (at the point) naming the element, and gives the import up.
  /// - The identifier is `_HealthPair.uuid`, else derived from the content (``ExportIdentity/audiogram``).
  mutating func audiogram() throws(ExportError) {
    let location = scanner.tokenLocation
    let a = recordAttributes()
    guard let typeIndex = a.type else {
      throw ExportError(.notAnExport, at: location, "an '<Audiogram>' without a 'type' attribute")
    }
    let typeName = try scanner.string(typeIndex)
    guard typeName == Self.audiogramTypeName else {
      summary.skip("Audiogram", typeName)
      _ = try skipSubtree()
      return
    }
    guard let startIndex = a.startDate, let endIndex = a.endDate else {
      throw ExportError(.notAnExport, at: location, "an '<Audiogram>' needs 'startDate' and 'endDate' attributes")
    }
    let start = try date(startIndex)
    let end = try date(endIndex)
    if let creation = a.creationDate { _ = try date(creation) }
    guard let sourceIndex = a.sourceName else {
      throw ExportError(.notAnExport, at: location, "an '<Audiogram>' without a 'sourceName' attribute")
    }
    let source = try sourceEntry(sourceIndex, version: a.sourceVersion, device: a.device)
    var metadata: Metadata = [:]
    var identifier: UUID?
    var points: [AudiogramPoint] = []
    var metadataBytes = 0
    try forEachChild(of: "Audiogram", at: location) { r throws(ExportError) in
      if r.scanner.nameIs("MetadataEntry") {
        try r.metadataEntry(into: &metadata, identifier: &identifier, bytes: &metadataBytes)
      } else if r.scanner.nameIs("SensitivityPoint") {
        let at = r.scanner.tokenLocation
        let point = try r.sensitivityPoint()
        try Self.checkPoint(point, after: points, at: at)
        points.append(point)
        _ = try r.skipSubtree()
      } else {
        r.summary.skip(r.scanner.name, "in Audiogram")
        _ = try r.skipSubtree()
      }
    }
    let derived = ExportIdentity.audiogram(
      start: start, end: end, source: source.hash, metadata: metadata, points: points)
    let audiogram = Audiogram(
      uuid: identifier ?? derived, start: Date(timeIntervalSinceReferenceDate: start),
      end: Date(timeIntervalSinceReferenceDate: end), points: points, metadata: metadata, source: source.source)
    do throws(HealthError) { try audiogram.validate() } catch {
      throw ExportError(.invalidRecord, at: location, "an '<Audiogram>': \(error.message)")
    }
    summary.audiograms += 1
    summary.sources[source.index].audiograms += 1
    pendingAudiograms.append(audiogram)
  }

  /// Refuses, at `location`, the point `point` would be after `points`: the 31st, one not above the previous
  /// frequency, or one `HKAudiogramSensitivityPoint` refuses (``Audiogram/check(_:)``), with Apple's message.
  static func checkPoint(_ point: AudiogramPoint, after points: [AudiogramPoint], at location: ExportLocation)
    throws(ExportError)
  {
    func refuse(_ message: String) -> ExportError {
      ExportError(.invalidRecord, at: location, "a '<SensitivityPoint>' of an '<Audiogram>': \(message)")
    }
    guard points.count < maxAudiogramPoints else {
      throw refuse("Audiograms are limited to \(maxAudiogramPoints) sensitivity points per sample")
    }
    if let previous = points.last, !(previous.frequency < point.frequency) {
      throw refuse(
        "Audiogram frequencies must be unique and in ascending order (\(formatNumber(point.frequency)) Hz after "
          + "\(formatNumber(previous.frequency)) Hz)")
    }
    do throws(HealthError) { try Audiogram.check(point) } catch { throw refuse(error.message) }
  }

  /// The `SensitivityPoint` the scanner is at, as written (not yet checked against HealthKit's ranges).
  private mutating func sensitivityPoint() throws(ExportError) -> AudiogramPoint {
    let at = scanner.tokenLocation
    guard let valueIndex = scanner.attribute("frequencyValue"), let unitIndex = scanner.attribute("frequencyUnit")
    else {
      throw ExportError(
        .notAnExport, at: at,
        "a '<SensitivityPoint>' of an '<Audiogram>' needs 'frequencyValue' and 'frequencyUnit' attributes")
    }
    let frequency = try quantity(valueIndex, unit: unitIndex, in: Self.hertz, what: "a frequency")
    var tests: [AudiogramTest] = []
    let ears: [(AudiogramSide, Int?, Int?, Int?, Int?, Int?)] = [
      (
        .left, scanner.attribute("leftEarValue"), scanner.attribute("leftEarUnit"),
        scanner.attribute("leftEarMasked"), scanner.attribute("leftEarClampingRangeLowerBound"),
        scanner.attribute("leftEarClampingRangeUpperBound")
      ),
      (
        .right, scanner.attribute("rightEarValue"), scanner.attribute("rightEarUnit"),
        scanner.attribute("rightEarMasked"), scanner.attribute("rightEarClampingRangeLowerBound"),
        scanner.attribute("rightEarClampingRangeUpperBound")
      ),
    ]
    for (side, value, unit, masked, lower, upper) in ears {
      guard let value else { continue }
      let sensitivity = try quantity(value, unit: unit, in: Self.hearingLevel, what: "a hearing level")
      var test = AudiogramTest(sensitivity: sensitivity, side: side)
      if let masked { test.masked = try flag(masked) }
      if let lower { test.clampLower = try number(lower) }
      if let upper { test.clampUpper = try number(upper) }
      tests.append(test)
    }
    guard !tests.isEmpty else {
      throw ExportError(
        .value, at: at, "a '<SensitivityPoint>' of an '<Audiogram>' with neither 'leftEarValue' nor 'rightEarValue'")
    }
    return AudiogramPoint(frequency: frequency, tests: tests)
  }

  /// The number attribute `index` holds, in the unit attribute `unitIndex` holds (`target` itself when there is
  /// none), converted to `target`.
  mutating func quantity(_ index: Int, unit unitIndex: Int?, in target: HealthUnit, what: String)
    throws(ExportError) -> Double
  {
    let amount = try number(index)
    guard let unitIndex else { return amount }
    let text = try scanner.string(unitIndex)
    guard let unit = try? HealthUnit.cached(text), unit.isCompatible(with: target),
      let converted = try? unit.convert(amount, to: target), converted.isFinite
    else {
      throw ExportError(
        .unit, at: scanner.valueLocation(unitIndex), "'\(text)' is not a unit of \(what) (like '\(target)')")
    }
    return converted
  }

  /// The Boolean attribute `index` holds: `1`/`0`, `true`/`false` or `YES`/`NO` (any case).
  private mutating func flag(_ index: Int) throws(ExportError) -> Bool {
    let text = try scanner.string(index)
    switch text.lowercased() {
    case "1", "true", "yes": return true
    case "0", "false", "no": return false
    default:
      throw ExportError(.value, at: scanner.valueLocation(index), "'\(text)' is not 1 or 0 (true or false)")
    }
  }

  /// Hertz, the unit frequencies are kept in.
  static var hertz: HealthUnit { try! HealthUnit.cached("Hz") }
  /// Decibels of hearing level, the unit sensitivities are kept in.
  static var hearingLevel: HealthUnit { try! HealthUnit.cached("dBHL") }
}
