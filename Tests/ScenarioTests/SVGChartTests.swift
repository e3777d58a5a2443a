import Testing

@testable import Render

/// Checks that `text` is well-formed XML as the chart writer emits it: one root element, every tag closed in order,
/// attribute values quoted, no raw `<` or stray `&` in text or attributes. Returns the element names in document
/// order, or the first problem.
func xmlElements(_ text: String) -> Result<[String], XMLProblem> {
  let bytes = Array(text.utf8)
  var i = 0
  var stack: [String] = []
  var names: [String] = []
  var roots = 0
  func problem(_ what: String) -> Result<[String], XMLProblem> { .failure(XMLProblem(offset: i, what: what)) }
  func entityOK(at j: Int) -> Bool {
    for entity in ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"] where bytes[j...].starts(with: Array(entity.utf8)) {
      return true
    }
    return false
  }
  func isNameByte(_ b: UInt8) -> Bool {
    (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x3A
  }
  while i < bytes.count {
    if bytes[i] == UInt8(ascii: "&") {
      guard entityOK(at: i) else { return problem("a stray '&' in text") }
      i += 1
      continue
    }
    guard bytes[i] == UInt8(ascii: "<") else {
      if stack.isEmpty && !(bytes[i] == 0x20 || bytes[i] == 0x0A) { return problem("text outside the root") }
      i += 1
      continue
    }
    i += 1
    let closing = i < bytes.count && bytes[i] == UInt8(ascii: "/")
    if closing { i += 1 }
    let nameStart = i
    while i < bytes.count && isNameByte(bytes[i]) { i += 1 }
    let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
    guard !name.isEmpty else { return problem("a tag without a name") }
    if closing {
      guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return problem("an unterminated end tag") }
      guard stack.last == name else { return problem("</\(name)> closes <\(stack.last ?? "nothing")>") }
      stack.removeLast()
      i += 1
      continue
    }
    // Attributes: name="value" pairs until > or />.
    var attributes = Set<String>()
    while true {
      while i < bytes.count && (bytes[i] == 0x20 || bytes[i] == 0x0A) { i += 1 }
      guard i < bytes.count else { return problem("an unterminated start tag") }
      if bytes[i] == UInt8(ascii: ">") {
        if stack.isEmpty { roots += 1 }
        stack.append(name)
        i += 1
        break
      }
      if bytes[i] == UInt8(ascii: "/") {
        guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") else { return problem("a stray '/'") }
        if stack.isEmpty { roots += 1 }
        i += 2
        break
      }
      let attributeStart = i
      while i < bytes.count && isNameByte(bytes[i]) { i += 1 }
      let attribute = String(decoding: bytes[attributeStart..<i], as: UTF8.self)
      guard !attribute.isEmpty, attributes.insert(attribute).inserted else {
        return problem("a missing or repeated attribute name in <\(name)>")
      }
      guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "="), bytes[i + 1] == UInt8(ascii: "\"") else {
        return problem("attribute \(attribute) of <\(name)> is not name=\"value\"")
      }
      i += 2
      while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
        if bytes[i] == UInt8(ascii: "<") { return problem("a raw '<' in an attribute") }
        if bytes[i] == UInt8(ascii: "&") && !entityOK(at: i) { return problem("a stray '&' in an attribute") }
        i += 1
      }
      guard i < bytes.count else { return problem("an unterminated attribute value") }
      i += 1
    }
    names.append(name)
  }
  guard stack.isEmpty else { return problem("<\(stack.last!)> is never closed") }
  guard roots == 1 else { return problem("\(roots) root elements") }
  return .success(names)
}

/// Where and why a document is not well-formed.
struct XMLProblem: Error, Equatable {
  var offset: Int
  var what: String
}

@Suite("SVG charts")
struct SVGChartTests {
  static let sizes: [Double] = [1_000, 10_000, 100_000, 1_000_000, 10_000_000]

  static func growth() -> SVGChart {
    SVGChart(
      title: "Recovery & memory <by size>", xLabel: "samples in the store", yLabel: "milliseconds",
      xScale: .logarithmic, yScale: .logarithmic,
      series: [
        .init(name: "from the snapshot", points: sizes.map { .init(x: $0, y: $0 / 5_000) }),
        .init(name: "replaying \"the journal\"", points: sizes.map { .init(x: $0, y: $0 / 800) }),
      ],
      references: [.init(label: "target", y: 3_000)])
  }

  @Test("a chart is one well-formed, self-contained svg element with its title, axis labels and legend")
  func wellFormed() throws {
    let svg = Self.growth().render()
    let names = try xmlElements(svg).get()
    #expect(names.first == "svg")
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    // Self-contained: the namespace is the only URL, and nothing is referenced or scripted.
    #expect(svg.components(separatedBy: "http").count == 2)
    for forbidden in ["href", "<script", "<style", "<image", "@import", "url("] { #expect(!svg.contains(forbidden)) }
    // Text is escaped, the labels say which axis is logarithmic, and both series and the target are in the legend.
    #expect(svg.contains("Recovery &amp; memory &lt;by size&gt;"))
    #expect(svg.contains("samples in the store (log scale)"))
    #expect(svg.contains("milliseconds (log scale)"))
    #expect(svg.contains("replaying &quot;the journal&quot;"))
    #expect(svg.contains("target: 3k"))
    #expect(names.filter { $0 == "polyline" }.count == 2)
    #expect(names.filter { $0 == "circle" }.count == 10)
  }

  @Test("a logarithmic axis has a tick at each decade the values span")
  func decades() {
    let svg = Self.growth().render()
    for label in [">1k<", ">10k<", ">100k<", ">1M<", ">10M<"] { #expect(svg.contains(label), "\(label)") }
    let axis = Axis(values: [1_000, 10_000_000], scale: .logarithmic)
    #expect(axis.ticks == [1_000, 10_000, 100_000, 1_000_000, 10_000_000])
    #expect(abs(axis.fraction(100_000) - 0.5) < 1e-9)
    let partial = Axis(values: [3, 420], scale: .logarithmic)
    #expect(partial.ticks == [1, 10, 100, 1_000])
  }

  @Test("a linear axis starts at zero and ticks at 1, 2 or 5 times a power of ten")
  func linear() {
    let axis = Axis(values: [1, 64], scale: .linear)
    #expect(axis.ticks.first == 0)
    #expect(axis.ticks.last == 80)
    #expect(axis.ticks.count == 5)
    let small = Axis(values: [0.012, 0.034], scale: .linear)
    #expect(small.ticks.count == 5)
    #expect(abs((small.ticks.last ?? 0) - 0.04) < 1e-12)
  }

  @Test("points a scale cannot show (zero or negative on a log scale, NaN, infinity) are left out, never drawn")
  func unusablePoints() throws {
    let chart = SVGChart(
      title: "t", xLabel: "x", yLabel: "y", xScale: .logarithmic, yScale: .logarithmic,
      series: [
        .init(name: "mixed", points: [.init(x: 0, y: 1), .init(x: 10, y: .nan), .init(x: 100, y: 5)]),
        .init(name: "empty", points: []),
      ])
    let svg = chart.render()
    _ = try xmlElements(svg).get()
    #expect(!svg.contains("nan") && !svg.contains("inf"))
    #expect(svg.components(separatedBy: "<circle").count == 2)
    // With no data at all the chart is still a valid, empty frame.
    let empty = SVGChart(title: "none", xLabel: "x", yLabel: "y", series: []).render()
    _ = try xmlElements(empty).get()
  }

  @Test("the well-formedness check itself rejects broken documents")
  func checkerRejects() {
    for broken in [
      "<svg><g></svg>", "<svg a=b/>", "<svg>&</svg>", "<svg/><svg/>", "<svg a=\"1\" a=\"2\"/>", "<svg>", "x<svg/>",
    ] {
      guard case .failure = xmlElements(broken) else {
        Issue.record("accepted \(broken)")
        continue
      }
    }
  }

  @Test("labels are short: thousands as k, millions as M, small values with their digits")
  func labels() {
    #expect(SVGChart.label(1_000) == "1k")
    #expect(SVGChart.label(2_500_000) == "2.5M")
    #expect(SVGChart.label(64) == "64")
    #expect(SVGChart.label(0.25) == "0.25")
    #expect(SVGChart.label(0) == "0")
  }
}
