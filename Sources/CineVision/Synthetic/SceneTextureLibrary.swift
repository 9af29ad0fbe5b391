// SceneTextureLibrary: every texture tile synthetic scenes use, painted once per process and
// shared by all scenes (a seed picks among them and places them; it does not repaint them).

/// The shared set of texture tiles: wall, paintings, furniture, clothing and characters.
///
/// Building it costs about 0.2 s in a release build (1.5 s in a debug build), so it happens once,
/// on first use (the first `SyntheticScene.init`), and all scenes share it; its memory is never freed, which is what makes the raw
/// pointers in ``TextureView`` safe to keep.
final class SceneTextureLibrary: Sendable {
    /// The library, built on first use.
    static let shared = SceneTextureLibrary()

    /// The backdrop (512 texels, wraps).
    let wall: SceneTexture
    /// Framed paintings to hang on the wall.
    let paintings: [SceneTexture]
    /// The sideboard front.
    let sideboard: SceneTexture
    /// The row of books standing on the sideboard.
    let bookshelf: SceneTexture
    /// The concrete columns.
    let column: SceneTexture
    /// Torso clothing, one per pattern.
    let clothing: [SceneTexture]
    /// People: face, back of head and neck in matching skin and hair.
    let characters: [SceneCharacter]
    /// The ball prop.
    let ball: SceneTexture
    /// The cup prop.
    let cup: SceneTexture
    /// The inside of an open mouth (talking subjects).
    let mouth: SceneTexture

    private init() {
        wall = SceneTexturePatterns.brickWall(salt: 0xB41C)
        paintings = (0..<4).map { SceneTexturePatterns.painting(salt: 0xA47 &+ UInt64($0) &* 7919) }
        sideboard = SceneTexturePatterns.sideboard(salt: 0x51DE)
        bookshelf = SceneTexturePatterns.bookshelf(salt: 0xB00C)
        column = SceneTexturePatterns.concreteColumn(salt: 0xC01)
        clothing = (0..<SceneTexturePatterns.clothingPatternCount).map {
            SceneTexturePatterns.clothing(pattern: $0, salt: 0xC107 &+ UInt64($0) &* 104_729)
        }
        let skins = [
            SceneColor(0.93, 0.76, 0.65), SceneColor(0.80, 0.60, 0.46),
            SceneColor(0.64, 0.44, 0.31), SceneColor(0.44, 0.29, 0.20),
        ]
        let hairs = [
            SceneColor(0.36, 0.23, 0.13), SceneColor(0.12, 0.09, 0.07),
            SceneColor(0.74, 0.60, 0.36), SceneColor(0.08, 0.07, 0.07),
        ]
        ball = SceneTexturePatterns.ball(salt: 0xBA11)
        cup = SceneTexturePatterns.cup(salt: 0xC0FF)
        mouth = SceneTexturePatterns.mouth()
        characters = (0..<4).map { i in
            let salt = 0xFACE &+ UInt64(i) &* 15_485_863
            return SceneCharacter(
                face: SceneTexturePatterns.face(skin: skins[i], hair: hairs[i], salt: salt),
                backOfHead: SceneTexturePatterns.backOfHead(skin: skins[i], hair: hairs[i], salt: salt &+ 1),
                neck: SceneTexturePatterns.neck(skin: skins[i], salt: salt &+ 2),
                finger: SceneTexturePatterns.finger(skin: skins[i], salt: salt &+ 3))
        }
    }
}

/// The head and neck tiles of one person.
struct SceneCharacter: Sendable {
    /// Seen from the front.
    let face: SceneTexture
    /// Seen from behind (the subject has turned away).
    let backOfHead: SceneTexture
    /// The neck, either way (and a hand's forearm, palm and thumb).
    let neck: SceneTexture
    /// A finger lying across the picture (``SceneHand``).
    let finger: SceneTexture
}
