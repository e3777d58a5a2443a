import FoundationEssentials
import HealthModel

/// A `Workout` element as read: the workout, the routes whose fixes were in the element (`Location`s, older
/// exports), and the routes whose fixes are in a GPX file the element names (`FileReference`, current exports),
/// which the file side resolves with ``RouteFile/resolve(in:)``.
package struct ImportedWorkout: Hashable, Sendable {
  /// The workout.
  package var workout: Workout
  /// Routes read with their fixes.
  package var routes: [WorkoutRoute]
  /// Routes whose fixes are in a file of the export.
  package var routeFiles: [RouteFile]

  /// Creates an imported workout.
  package init(workout: Workout, routes: [WorkoutRoute] = [], routeFiles: [RouteFile] = []) {
    self.workout = workout
    self.routes = routes
    self.routeFiles = routeFiles
  }
}

/// A `WorkoutRoute` whose fixes are in a GPX file: the route without its locations, the `FileReference` path and
/// where the reference stands (for errors).
package struct RouteFile: Hashable, Sendable {
  /// The route (identifier, workout, metadata, source); its locations are empty until resolved.
  package var route: WorkoutRoute
  /// The `FileReference`'s `path` as written (`/workout-routes/route_2023-01-01_7.30am.gpx`).
  package var path: String
  /// Where the `FileReference` is in `export.xml`.
  package var location: ExportLocation

  /// Creates a reference.
  package init(route: WorkoutRoute, path: String, location: ExportLocation) {
    self.route = route
    self.path = path
    self.location = location
  }

  /// The route with the fixes of its GPX file, opened through `files`; nil when the export does not hold the file
  /// (HealthPair model: the workout is imported without that route and the file side reports it — exports are
  /// often shared as `export.xml` alone).
  /// - Throws: ``ExportError`` for a path that leaves the export's folder, or a GPX file that does not parse.
  package func resolve(in files: any ExportFiles) throws(ExportError) -> WorkoutRoute? {
    let relative = try Self.relativePath(path, at: location)
    guard let input = try files.open(relative) else { return nil }
    var reader = GPXReader(input, file: files.displayName(of: relative))
    let locations = try reader.locations()
    guard !locations.isEmpty else { return nil }
    return WorkoutRoute(
      uuid: route.uuid, workout: route.workout, locations: locations, metadata: route.metadata, source: route.source)
  }

  /// `path` relative to the export's folder (`workout-routes/route_….gpx`): the leading `/` Apple writes is
  /// dropped; an empty path, an empty, `.` or `..` component, or a backslash is refused (a file the export names
  /// must be inside it).
  package static func relativePath(_ path: String, at location: ExportLocation) throws(ExportError) -> String {
    let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
    let components = trimmed.split(separator: "/", omittingEmptySubsequences: false)
    guard !trimmed.isEmpty, !trimmed.contains("\\"), !trimmed.utf8.contains(0),
      components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
    else {
      throw ExportError(.value, at: location, "'\(path)' is not a path inside the export")
    }
    return trimmed
  }
}

/// The files beside `export.xml` in an export (its folder, or the zip archive holding it), as the file side
/// provides them: a route's GPX file is opened by its path relative to the export's folder.
package protocol ExportFiles {
  /// The file at `path` (relative to the export's folder: `workout-routes/route_2023-01-01_7.30am.gpx`), read front
  /// to back; nil when the export holds no such file.
  /// - Throws: ``ExportError`` when the file exists but cannot be read.
  func open(_ path: String) throws(ExportError) -> (any ByteInput)?
  /// How errors name the file at `path` (`export.zip/apple_health_export/workout-routes/…`).
  func displayName(of path: String) -> String
  /// The paths (relative to the export's folder, sorted) of the files directly in `folder` (`electrocardiograms/`,
  /// with its trailing `/`); empty when the export holds no such folder.
  /// - Throws: ``ExportError`` when the folder exists but cannot be listed.
  func paths(in folder: String) throws(ExportError) -> [String]
}

/// Files held in memory by relative path (tests, fixtures).
package struct MemoryExportFiles: ExportFiles {
  /// The files' bytes by path relative to the export's folder.
  package var files: [String: [UInt8]]

  /// Creates the set.
  package init(_ files: [String: [UInt8]] = [:]) { self.files = files }

  /// The file's bytes, or nil.
  package func open(_ path: String) throws(ExportError) -> (any ByteInput)? {
    files[path].map { MemoryInput($0) }
  }

  /// The path itself.
  package func displayName(of path: String) -> String { path }

  /// The held paths directly in `folder`.
  package func paths(in folder: String) throws(ExportError) -> [String] {
    files.keys.filter { $0.hasPrefix(folder) && !$0.dropFirst(folder.count).contains("/") }.sorted()
  }
}
