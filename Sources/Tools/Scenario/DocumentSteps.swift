import FoundationEssentials
import HealthEngine
import HealthExport
import HealthModel
import HealthPairClient
import ScenarioLanguage

/// CDA documents: an app's save (the runner writes the XML and HealthKit's checks read it, as `HKCDADocumentSample`'s
/// initializer does), a document query's sheet, and what the app may read (behavior.md section O).
extension RunContext {
  /// `<device>: <App> saves CDA document "<title>" …`: its outcome is the app's last call — `errorInvalidArgument`
  /// for a document HealthKit's validation refuses, as the initializer throws.
  mutating func saveDocument(_ device: DeviceKind, _ name: String, _ spec: DocumentSpec) throws {
    let date = spec.date.map { resolve($0, on: device) } ?? now
    let xml = Array(Self.cdaXML(spec, effectiveTime: date).utf8)
    let header: CDAHeader
    switch CDAReader.read(xml) {
    case .success(let read): header = read
    case .failure(let invalid):
      record(device, name, "HKCDADocumentSample(data:)", .failure(.healthKit(.errorInvalidArgument, invalid.message)))
      return
    }
    let document = CDADocument(
      uuid: rng.uuid(), start: header.effectiveTime ?? date, end: header.effectiveTime ?? date, data: xml,
      title: header.title, patientName: header.patientName, authorName: header.authorName,
      custodianName: header.custodianName, source: SampleSource(bundleID: "", device: device))
    if let n = spec.name { names[n] = document.uuid }
    let bundle = app(name).bundleID
    let c = client(device)
    record(device, name, "save", try capture { () throws(ClientError) in try c.saveCDADocuments(bundle, [document]) })
  }

  /// `<device>: <App> asks to read CDA documents [titled "<title>"]`: the sheet an `HKDocumentQuery` shows first,
  /// pending while it is up (at once when no document needs asking).
  mutating func requestDocuments(_ device: DeviceKind, _ name: String, title: String?) throws {
    let query = SampleQuery(
      type: SpecialObjectStore.cdaType, range: nil, sources: nil, limit: 0, sort: [],
      filter: title.map { .cdaField(.title, $0) })
    let request = try client(device).start(.requestPerObjectRead(declared(name, on: device).bundleID, query))
    try awaitSheet(device, name, request, api: "HKDocumentQuery")
  }

  /// `<App> sees <n> CDA documents [titled "<title>"] [query]`: the documents the app may read.
  func checkSeesDocuments(_ devices: Devices, _ spec: SampleQuerySpec, _ expected: Int, title: String?, _ step: Step)
    throws
  {
    for device in devices.list {
      let query = SampleQuery(
        type: spec.type, range: spec.range.map { resolve($0, on: device) }, sources: sources(spec.sources),
        limit: spec.limit ?? 0, sort: spec.sort, filter: title.map { .cdaField(.title, $0) })
      let found = try queried(step, "\(spec.app)'s document query", on: device, expecting: expected) {
        () throws(ClientError) in try client(device).cdaDocumentQuery(app(spec.app).bundleID, query)
      }
      if found.count != expected {
        throw fail(
          step, "\(spec.app) sees \(expected) CDA document\(expected == 1 ? "" : "s") on the \(device)",
          "\(found.count) document\(found.count == 1 ? "" : "s")"
            + (found.isEmpty ? "" : ": " + found.map { "\"\($0.title)\"" }.joined(separator: ", ")))
      }
    }
  }

  /// A CDA R2 document with the header HealthKit reads (`effectiveTime` in UTC) and an empty structured body.
  static func cdaXML(_ spec: DocumentSpec, effectiveTime: Date) -> String {
    func escaped(_ text: String) -> String {
      text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
    func person(_ name: String) -> String {
      let parts = name.split(separator: " ").map(String.init)
      let given = parts.dropLast().map { "<given>\(escaped($0))</given>" }.joined()
      return "<name>\(given)<family>\(escaped(parts.last ?? ""))</family></name>"
    }
    let custodian =
      spec.withoutCustodian
      ? ""
      : "<custodian><assignedCustodian><representedCustodianOrganization><id root=\"2.16.840.1.113883.19.5\"/>"
        + "<name>\(escaped(spec.custodian))</name></representedCustodianOrganization></assignedCustodian></custodian>"
    let time = hl7Time(effectiveTime)
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <ClinicalDocument xmlns="urn:hl7-org:v3">
        <typeId root="2.16.840.1.113883.1.3" extension="POCD_HD000040"/>
        <id root="2.16.840.1.113883.19.4" extension="c266"/>
        <code code="34133-9" codeSystem="2.16.840.1.113883.6.1" displayName="Summary of episode note"/>
        <title>\(escaped(spec.title))</title>
        <effectiveTime value="\(time)"/>
        <confidentialityCode code="N" codeSystem="2.16.840.1.113883.5.25"/>
        <recordTarget><patientRole><id extension="12345" root="2.16.840.1.113883.19.5"/>
          <patient>\(person(spec.patient))</patient></patientRole></recordTarget>
        <author><time value="\(time)"/><assignedAuthor><id root="2.16.840.1.113883.19.5"/>
          <assignedPerson>\(person(spec.author))</assignedPerson></assignedAuthor></author>
        \(custodian)
        <component><structuredBody/></component>
      </ClinicalDocument>
      """
  }

  /// `yyyyMMddHHmmss+0000`.
  static func hl7Time(_ date: Date) -> String {
    let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let (y, m, d) = civilFromDays(days)
    let rest = seconds - days * 86_400
    func pad(_ n: Int64, _ width: Int) -> String {
      let text = String(n)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return pad(y, 4) + pad(m, 2) + pad(d, 2) + pad(rest / 3600, 2) + pad(rest % 3600 / 60, 2) + pad(rest % 60, 2)
      + "+0000"
  }
}
