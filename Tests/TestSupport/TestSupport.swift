// What more than one test target needs: the repository's files, found from this file's path, and hex bytes.
// A library target (not a test target), so every test target can depend on it.
import Posix

/// The checked-out repository, as the tests see it.
package enum Repository {
  /// The repository's root: this file is Tests/TestSupport/TestSupport.swift.
  package static let root: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
  }()

  /// The absolute path of `relative` (e.g. "Scenarios/import-export/fixtures/export.xml").
  package static func path(_ relative: String) -> String { root + "/" + relative }

  /// The UTF-8 text of the repository file at `relative`.
  package static func read(_ relative: String) throws -> String {
    String(decoding: try Posix.readFile(path(relative)), as: UTF8.self)
  }

  /// The Apple Health export fixtures the import tests share (Scenarios/import-export/fixtures).
  package static let exportFixtures = path("Scenarios/import-export/fixtures")
}

/// Bytes written as hexadecimal digits, the way fixtures and failure messages show them.
package enum Hex {
  /// The bytes of `text`'s hex digit pairs; whitespace is ignored. A character that is not a hex digit is a bug in
  /// the fixture, so it stops the test run with the offending text.
  package static func bytes(_ text: some StringProtocol) -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D })
    precondition(digits.count % 2 == 0, "an odd number of hex digits in \(text)")
    return stride(from: 0, to: digits.count, by: 2).map { i in
      guard let high = value(digits[i]), let low = value(digits[i + 1]) else {
        preconditionFailure("not hex: \(String(decoding: digits[i...i + 1], as: UTF8.self)) in \(text)")
      }
      return high << 4 | low
    }
  }

  /// `bytes` as lowercase hex digits, two per byte, no separators.
  package static func string(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func value(_ digit: UInt8) -> UInt8? {
    switch digit {
    case 0x30...0x39: digit - 0x30
    case 0x61...0x66: digit - 0x61 + 10
    case 0x41...0x46: digit - 0x41 + 10
    default: nil
    }
  }
}
