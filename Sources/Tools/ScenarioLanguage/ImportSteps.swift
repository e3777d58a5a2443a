import HealthEngine
import HealthModel

/// Apple Health exports: `import <file> on <device> …` and `export <device> to <name>`.
extension ParseState {
  /// `import <file> on <device> [with source "<name>" as <bundle>]… [fails [with "<text>"]]`.
  func parseImport(_ c: inout Cursor) throws(Diagnostic) -> ImportStep {
    let file = try c.word("the export file (export.xml or export.zip, relative to this scenario)")
    try c.expect("on")
    let device = try c.device()
    var sources: [String: String] = [:]
    while c.take("with", "source") {
      let name = try c.word("the source's name in the export (quoted)")
      try c.expect("as")
      let bundle = try c.word("a bundle identifier")
      guard !bundle.quoted, bundle.text.contains(".") else {
        throw c.error(.expected("a bundle identifier such as com.example.water", found: bundle.text), at: bundle)
      }
      sources[name.text] = bundle.text
    }
    var failure: String?
    if c.take("fails") {
      failure = ""
      if c.take("with") { failure = try c.word("a quoted part of the error message").text }
    }
    try c.finish()
    return ImportStep(device: device, path: file.text, sources: sources, failure: failure)
  }

  /// `export <device> to <name>`: a file name ending in `.xml` or `.zip`, without `/`.
  func parseExport(_ c: inout Cursor) throws(Diagnostic) -> StepKind {
    let device = try c.device()
    try c.expect("to")
    let name = try c.word("a file name such as phone.zip")
    guard !name.text.contains("/"), name.text.hasSuffix(".xml") || name.text.hasSuffix(".zip") else {
      throw c.error(.expected("a file name ending in .xml or .zip, without '/'", found: name.text), at: name)
    }
    try c.finish()
    return .exportStore(device, name: name.text)
  }
}
