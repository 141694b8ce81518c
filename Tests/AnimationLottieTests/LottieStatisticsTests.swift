import AnimationLottie
import Testing

/// What a file holds, as the Lottie report lists it beside each file's tick.
@Suite("Lottie statistics")
struct LottieStatisticsTests {
    @Test("layers count each precomposition once per layer showing it; paths, paints, trims and keyframes are counted item by item")
    func countsWhatAnInstanceDraws() throws {
        // start-times: 7 root layers, the precomposition's 3, the nested one's 1; eight drawn
        // things (six rectangles, two solids), nine animated properties of 2 keys and one of 3.
        #expect(try lottieFile("start-times").statistics
                == LottieStatistics(layers: 11, paths: 8, paints: 8, trims: 0, keyframes: 19))
        // precomposition-clips shows composition "a" twice, and "b" inside it: 2 + 2 · (2 + 1).
        let clips = try lottieFile("precomposition-clips").statistics
        #expect(clips.layers == 8 && clips.paths == 4 && clips.keyframes == 2 * 2)
        // paints-and-trims: twelve paths in ten layers (two in the groups of one, two under the
        // sequential trim), ten paints, five trims.
        let trims = try lottieFile("paints-and-trims").statistics
        #expect(trims.trims == 5 && trims.paints == 10 && trims.paths == 12)
    }
}
