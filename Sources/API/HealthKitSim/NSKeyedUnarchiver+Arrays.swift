import Foundation

#if !canImport(Darwin)
  extension NSKeyedUnarchiver {
    /// Unarchives an array whose elements are all of class `cls` (secure coding), or nil when the archive holds
    /// something else — Apple's Foundation overlay on Darwin; swift-corelibs-foundation lacks it. Apps unarchive the
    /// `[HKStatistics]` a watch sends over a mirrored session this way (Apple's multi-device workout sample).
    public class func unarchivedArrayOfObjects<DecodedObjectType: NSObject & NSCoding>(
      ofClass cls: DecodedObjectType.Type, from data: Data
    ) throws -> [DecodedObjectType]? {
      try unarchivedObject(ofClasses: [NSArray.self, cls], from: data) as? [DecodedObjectType]
    }
  }
#endif
