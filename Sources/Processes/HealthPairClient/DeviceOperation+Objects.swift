import FoundationEssentials
import HealthEngine
import HealthModel
import Wire

// The special object families' operations (docs/protocol.md, opcodes 120–139): one named factory per request,
// each the request's row in `RequestTable+Objects.swift` with its fields labelled.

extension DeviceOperation where Value == Void {
  /// The watch's ECG app records `recording` (the user's world; fails on the iPhone).
  package static func recordElectrocardiogram(_ recording: ECGRecording) -> Self {
    Self(RequestTable.recordElectrocardiogram, recording)
  }
  /// Stages electrocardiograms of an import; stored at ``importCommit(_:characteristics:)``.
  package static func importElectrocardiograms(_ importID: UInt64, _ ecgs: [Electrocardiogram]) -> Self {
    Self(RequestTable.importElectrocardiograms, importID, ecgs)
  }
}

extension DeviceOperation where Value == [Electrocardiogram] {
  /// `HKSampleQuery` of electrocardiograms: the recordings the app may read, without their voltages.
  package static func electrocardiogramQuery(_ bundleID: String, _ query: SampleQuery) -> Self {
    Self(RequestTable.electrocardiogramQuery, bundleID, query)
  }
  /// Every electrocardiogram on the device with its voltages, whatever recorded it (exports, tests).
  package static var storedElectrocardiograms: Self { Self(RequestTable.storedElectrocardiograms) }
}

extension DeviceOperation where Value == [Float] {
  /// `HKElectrocardiogramQuery`: the voltages of the recording `uuid`, microvolts, in time order.
  package static func electrocardiogramVoltages(_ bundleID: String, _ uuid: UUID) -> Self {
    Self(RequestTable.electrocardiogramVoltages, bundleID, uuid)
  }
}

extension DeviceClient {
  /// The watch's ECG app records `recording`.
  package func recordElectrocardiogram(_ recording: ECGRecording) throws(ClientError) {
    try perform(.recordElectrocardiogram(recording))
  }
  /// Electrocardiograms the app may read (headers).
  package func electrocardiogramQuery(_ bundleID: String, _ query: SampleQuery) throws(ClientError)
    -> [Electrocardiogram]
  {
    try perform(.electrocardiogramQuery(bundleID, query))
  }
  /// One recording's voltages.
  package func electrocardiogramVoltages(_ bundleID: String, _ uuid: UUID) throws(ClientError) -> [Float] {
    try perform(.electrocardiogramVoltages(bundleID, uuid))
  }
  /// Every electrocardiogram on the device, with voltages.
  package func storedElectrocardiograms() throws(ClientError) -> [Electrocardiogram] {
    try perform(.storedElectrocardiograms)
  }
}
