/// A picture size in pixels.
public struct VideoSize: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` x `height`.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
