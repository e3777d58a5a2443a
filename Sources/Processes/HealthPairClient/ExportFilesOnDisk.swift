import FoundationEssentials
import HealthExport
import HealthModel
import Posix

#if canImport(Glibc)
  import Glibc
#endif

/// The files beside an `export.xml` on disk (its folder, as Apple's `apple_health_export/` unzipped): a route file
/// is the regular file at the relative path under that folder (``RouteFile/relativePath(_:at:)`` keeps it inside).
package struct DirectoryExportFiles: ExportFiles {
  /// The folder holding `export.xml`.
  package let root: String

  /// The files of the folder `root`.
  package init(root: String) { self.root = root }

  /// The file, or nil when there is nothing at the path.
  package func open(_ path: String) throws(ExportError) -> (any ByteInput)? {
    let full = displayName(of: path)
    guard Posix.status(ofPath: full) != nil else { return nil }
    return try FileInput(path: full)
  }

  /// The file's path on disk.
  package func displayName(of path: String) -> String { root.isEmpty ? path : root + "/" + path }
}

extension HealthExportFiles {
  /// The files beside the export at `path` (what its `FileReference`s name, and its `electrocardiograms/`): the
  /// folder of an `export.xml`, or the folder of `export.xml` inside a zip archive (`entryName`,
  /// `apple_health_export/export.xml`), found through the archive's central directory.
  /// - Throws: ``ExportError`` for an archive whose central directory is damaged.
  static func files(beside path: String, zipEntry entryName: String?) throws(ExportError) -> any ExportFiles {
    guard let entryName else {
      let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      return DirectoryExportFiles(root: path.hasPrefix("/") && folder.isEmpty ? "/" : folder)
    }
    let root = entryName.split(separator: "/", omittingEmptySubsequences: false).dropLast().map { $0 + "/" }.joined()
    return try ZipDirectory(
      FileInput(path: path), file: path, root: root, under: "workout-routes/", ECGCSV.folder, ClinicalRecordFile.folder)
  }

  /// Resolves `workouts`' route files through `files`: the routes of each (inline ones and those whose file the
  /// export holds; a reference to a file it does not hold is reported in `summary` and skipped).
  static func routes(of workouts: [ImportedWorkout], in files: any ExportFiles, summary: inout ImportSummary)
    throws(ExportError) -> [WorkoutRoute]
  {
    var routes: [WorkoutRoute] = []
    for imported in workouts {
      routes += imported.routes
      for file in imported.routeFiles {
        if let route = try file.resolve(in: files) {
          routes.append(route)
        } else {
          summary.skip("FileReference", "file not in the export")
        }
      }
    }
    return routes
  }
}
