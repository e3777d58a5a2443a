/// A line chart rendered as a self-contained SVG document: no scripts, fonts, style sheets or links, so a
/// browser or a Markdown viewer shows it from the file alone. Pure: series in, a string out.
///
/// Used by `healthpair-bench` to draw how a cost grows with the store's size or the number of clients
/// (docs/performance.md); any caller with `(x, y)` series can add a chart.
package struct SVGChart: Sendable, Equatable {
  /// How an axis maps values to positions.
  package enum Scale: Sendable, Equatable {
    /// Evenly spaced values; ticks at 1, 2 or 5 times a power of ten.
    case linear
    /// Evenly spaced decades (values ≤ 0 are left out); ticks at the powers of ten.
    case logarithmic
  }

  /// One named line of points.
  package struct Series: Sendable, Equatable {
    /// The legend's name for it.
    package var name: String
    /// The points, drawn in the order given.
    package var points: [Point]
    /// Creates a series.
    package init(name: String, points: [Point]) {
      self.name = name
      self.points = points
    }
  }

  /// One point of a series.
  package struct Point: Sendable, Equatable {
    /// Its horizontal value.
    package var x: Double
    /// Its vertical value.
    package var y: Double
    /// Creates a point.
    package init(x: Double, y: Double) {
      self.x = x
      self.y = y
    }
  }

  /// A horizontal dashed line with a label, such as a target.
  package struct Reference: Sendable, Equatable {
    /// The label drawn beside it.
    package var label: String
    /// Its vertical value.
    package var y: Double
    /// Creates a reference line.
    package init(label: String, y: Double) {
      self.label = label
      self.y = y
    }
  }

  /// The chart's title, drawn at the top.
  package var title: String
  /// The horizontal axis's label (with its unit).
  package var xLabel: String
  /// The vertical axis's label (with its unit).
  package var yLabel: String
  /// The horizontal scale.
  package var xScale: Scale
  /// The vertical scale.
  package var yScale: Scale
  /// The lines.
  package var series: [Series]
  /// Horizontal reference lines (targets).
  package var references: [Reference]
  /// The document's width in pixels.
  package var width: Int
  /// The document's height in pixels.
  package var height: Int

  /// Creates a chart.
  package init(
    title: String, xLabel: String, yLabel: String, xScale: Scale = .linear, yScale: Scale = .linear,
    series: [Series], references: [Reference] = [], width: Int = 640, height: Int = 400
  ) {
    self.title = title
    self.xLabel = xLabel
    self.yLabel = yLabel
    self.xScale = xScale
    self.yScale = yScale
    self.series = series
    self.references = references
    self.width = max(width, 200)
    self.height = max(height, 150)
  }

  /// The colours of the series, in order (repeated when there are more series).
  static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]

  /// The SVG document.
  package func render() -> String {
    let left = 78.0
    let right = 24.0
    let top = 40.0
    let legendRows = Double(series.count + references.count)
    let bottom = 52.0 + 16 * legendRows
    let plotWidth = Double(width) - left - right
    let plotHeight = max(Double(height) - top - bottom, 40)
    let totalHeight = Int(top + plotHeight + bottom)
    let xs = series.flatMap { $0.points.map(\.x) }.filter { usable($0, xScale) }
    let ys = (series.flatMap { $0.points.map(\.y) } + references.map(\.y)).filter { usable($0, yScale) }
    let xAxis = Axis(values: xs, scale: xScale)
    let yAxis = Axis(values: ys, scale: yScale)
    func px(_ x: Double) -> Double { left + xAxis.fraction(x) * plotWidth }
    func py(_ y: Double) -> Double { top + (1 - yAxis.fraction(y)) * plotHeight }

    var out = """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(totalHeight)" \
      viewBox="0 0 \(width) \(totalHeight)" font-family="sans-serif" font-size="12">

      """
    out += "<title>\(escape(title))</title>\n"
    out += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(totalHeight)\" fill=\"#ffffff\"/>\n"
    out += text(Double(width) / 2, 22, title, anchor: "middle", extra: " font-size=\"14\" font-weight=\"bold\"")
    // Grid and tick labels.
    for tick in xAxis.ticks {
      let x = px(tick)
      out += line(x, top, x, top + plotHeight, stroke: "#e0e0e0")
      out += text(x, top + plotHeight + 16, Self.label(tick), anchor: "middle")
    }
    for tick in yAxis.ticks {
      let y = py(tick)
      out += line(left, y, left + plotWidth, y, stroke: "#e0e0e0")
      out += text(left - 6, y + 4, Self.label(tick), anchor: "end")
    }
    // Axes and their labels.
    out += line(left, top + plotHeight, left + plotWidth, top + plotHeight, stroke: "#000000")
    out += line(left, top, left, top + plotHeight, stroke: "#000000")
    let xTitle = xLabel + (xScale == .logarithmic ? " (log scale)" : "")
    let yTitle = yLabel + (yScale == .logarithmic ? " (log scale)" : "")
    out += text(left + plotWidth / 2, top + plotHeight + 34, xTitle, anchor: "middle")
    let cy = top + plotHeight / 2
    out += text(16, cy, yTitle, anchor: "middle", extra: " transform=\"rotate(-90 16 \(Self.coordinate(cy)))\"")
    // Reference lines.
    for reference in references where usable(reference.y, yScale) {
      let y = py(reference.y)
      out += line(left, y, left + plotWidth, y, stroke: "#555555", extra: " stroke-dasharray=\"6 4\"")
    }
    // Series.
    for (n, s) in series.enumerated() {
      let colour = Self.palette[n % Self.palette.count]
      let points = s.points.filter { usable($0.x, xScale) && usable($0.y, yScale) }
      guard !points.isEmpty else { continue }
      let list = points.map { "\(Self.coordinate(px($0.x))),\(Self.coordinate(py($0.y)))" }.joined(separator: " ")
      out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\" points=\"\(list)\"/>\n"
      for p in points {
        out += "<circle cx=\"\(Self.coordinate(px(p.x)))\" cy=\"\(Self.coordinate(py(p.y)))\" r=\"3\" "
        out += "fill=\"\(colour)\"><title>\(escape(s.name)): \(Self.label(p.x)), \(Self.label(p.y))</title></circle>\n"
      }
    }
    // Legend, one row per series and reference, under the axis title.
    var row = top + plotHeight + 52
    for (n, s) in series.enumerated() {
      let colour = Self.palette[n % Self.palette.count]
      out += line(left, row - 4, left + 24, row - 4, stroke: colour, extra: " stroke-width=\"2\"")
      out += text(left + 30, row, s.name, anchor: "start")
      row += 16
    }
    for reference in references {
      out += line(left, row - 4, left + 24, row - 4, stroke: "#555555", extra: " stroke-dasharray=\"6 4\"")
      out += text(left + 30, row, "\(reference.label): \(Self.label(reference.y))", anchor: "start")
      row += 16
    }
    out += "</svg>\n"
    return out
  }

  private func usable(_ v: Double, _ scale: Scale) -> Bool { v.isFinite && (scale == .linear || v > 0) }

  private func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, extra: String = ""
  ) -> String {
    "<line x1=\"\(Self.coordinate(x1))\" y1=\"\(Self.coordinate(y1))\" x2=\"\(Self.coordinate(x2))\" "
      + "y2=\"\(Self.coordinate(y2))\" stroke=\"\(stroke)\"\(extra)/>\n"
  }

  private func text(_ x: Double, _ y: Double, _ content: String, anchor: String, extra: String = "") -> String {
    "<text x=\"\(Self.coordinate(x))\" y=\"\(Self.coordinate(y))\" text-anchor=\"\(anchor)\"\(extra)>"
      + "\(escape(content))</text>\n"
  }

  /// A coordinate with one decimal.
  static func coordinate(_ v: Double) -> String {
    let tenths = (v * 10).rounded()
    let whole = Int(tenths / 10)
    let fraction = Int(abs(tenths).truncatingRemainder(dividingBy: 10))
    return fraction == 0 ? "\(whole)" : "\(tenths < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
  }

  /// A tick or point value, short: 1k, 2.5M, 0.01, 350.
  package static func label(_ v: Double) -> String {
    let magnitude = abs(v)
    func trimmed(_ x: Double) -> String {
      let rounded = (x * 100).rounded() / 100
      if rounded == rounded.rounded() { return "\(Int(rounded))" }
      var s = "\(rounded)"
      while s.hasSuffix("0") { s.removeLast() }
      return s
    }
    if magnitude >= 1e9 { return trimmed(v / 1e9) + "G" }
    if magnitude >= 1e6 { return trimmed(v / 1e6) + "M" }
    if magnitude >= 1e3 { return trimmed(v / 1e3) + "k" }
    if magnitude >= 0.01 || magnitude == 0 { return trimmed(v) }
    var p = 0
    var m = magnitude
    while m < 1 {
      m *= 10
      p += 1
    }
    return (v < 0 ? "-" : "") + trimmed(m) + "e-\(p)"
  }

  /// Escapes text for XML content and attribute values.
  private func escape(_ s: String) -> String {
    var out = ""
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(c)
      }
    }
    return out
  }
}

/// An axis's range and ticks.
struct Axis {
  let scale: SVGChart.Scale
  let low: Double
  let high: Double
  let ticks: [Double]

  init(values: [Double], scale: SVGChart.Scale) {
    self.scale = scale
    var lo = values.min() ?? (scale == .linear ? 0 : 1)
    var hi = values.max() ?? (scale == .linear ? 1 : 10)
    switch scale {
    case .logarithmic:
      var a = 1.0
      while a > lo { a /= 10 }
      while a * 10 <= lo { a *= 10 }
      var b = a * 10
      while b < hi { b *= 10 }
      lo = a
      hi = b
      var ticks: [Double] = []
      var t = a
      while t <= hi * 1.000_001 {
        ticks.append(t)
        t *= 10
      }
      self.ticks = ticks
    case .linear:
      lo = min(lo, 0)
      if hi <= lo { hi = lo + 1 }
      let rough = (hi - lo) / 5
      var step = 1.0
      while step > rough { step /= 10 }
      while step * 10 <= rough { step *= 10 }
      for m in [1.0, 2, 5, 10] where step * m >= rough {
        step *= m
        break
      }
      lo = (lo / step).rounded(.down) * step
      hi = (hi / step).rounded(.up) * step
      var ticks: [Double] = []
      var i = 0.0
      while lo + i * step <= hi + step / 1000 {
        ticks.append(lo + i * step)
        i += 1
      }
      self.ticks = ticks
    }
    self.low = lo
    self.high = hi
  }

  /// Where `v` falls between the axis's ends, 0…1.
  func fraction(_ v: Double) -> Double {
    switch scale {
    case .linear: return (v - low) / (high - low)
    case .logarithmic:
      return (log10(v) - log10(low)) / (log10(high) - log10(low))
    }
  }
}

/// Base-ten logarithm, without Foundation.
private func log10(_ v: Double) -> Double {
  // ln(v) / ln(10), by reduction to [1, 10) and a series for the mantissa.
  var m = v
  var e = 0.0
  while m >= 10 {
    m /= 10
    e += 1
  }
  while m < 1 {
    m *= 10
    e -= 1
  }
  // ln(m) = 2 atanh((m - 1) / (m + 1)).
  let z = (m - 1) / (m + 1)
  let z2 = z * z
  var term = z
  var sum = 0.0
  var k = 1.0
  for _ in 0..<40 {
    sum += term / k
    term *= z2
    k += 2
  }
  return e + 2 * sum / 2.302_585_092_994_046
}
