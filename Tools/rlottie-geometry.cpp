// rlottie's view of a Lottie file in the geometry format of `animation-engine lottie geometry`, for
// checking AnimationLottie against the peer (the issue "Lottie at scale", Deliver 5).
//
//   c++ -O2 -std=c++17 Tools/rlottie-geometry.cpp -lrlottie -o rlottie-geometry
//   rlottie-geometry FILE --frames 0,7,15 --size 256 --ip 0
//
// rlottie's renderTree(n, w, h) evaluates frame ip + n without rasterising. Its nodes carry the
// colour with every opacity folded into an 8-bit alpha, so a node here has the colour's red,
// green and blue, alpha 1, and `opacity` = that alpha / 255. Frames must be whole numbers: rlottie
// evaluates integer frames only.
#include <rlottie.h>
#include <rlottiecommon.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static void number(double x) {
    if (!std::isfinite(x)) { std::printf("null"); return; }
    if (x == std::floor(x) && std::fabs(x) < 1e15) { std::printf("%lld", (long long)x); return; }
    std::printf("%.9g", x);
}

static bool first = true;

// The clip paths of the layers around the node being printed, outermost first (rlottie gives a
// precomposition's layer node the precomposition's rectangle, in device pixels).
static std::vector<const LOTLayerNode *> clips;

static void elements(const float *p, const char *kinds, size_t count) {
    for (size_t e = 0; e < count; e++) {
        if (e) std::printf(",");
        switch (kinds[e]) {
        case 0: std::printf("[\"M\","); number(p[0]); std::printf(","); number(p[1]); std::printf("]"); p += 2; break;
        case 1: std::printf("[\"L\","); number(p[0]); std::printf(","); number(p[1]); std::printf("]"); p += 2; break;
        case 2:
            std::printf("[\"C\"");
            for (int k = 0; k < 6; k++) { std::printf(","); number(p[k]); }
            std::printf("]");
            p += 6;
            break;
        default: std::printf("[\"Z\"]"); break;
        }
    }
}

static void node(const LOTNode *n) {
    if (n->mBrushType != BrushSolid) return;   // gradients are outside L1
    if (n->mPath.elmCount == 0) return;         // nothing drawn (a stroke trimmed away): AnimationLottie lists no node
    std::printf(first ? "" : ",");
    first = false;
    std::printf("{\"path\":[");
    elements(n->mPath.ptPtr, n->mPath.elmPtr, n->mPath.elmCount);
    std::printf("],");
    const char *paint = n->mStroke.enable ? "\"fill\":null,\"stroke\":" : "\"stroke\":null,\"fill\":";
    std::printf("%s[", paint);
    number(n->mColor.r / 255.0); std::printf(","); number(n->mColor.g / 255.0); std::printf(",");
    number(n->mColor.b / 255.0); std::printf(",1],\"strokeWidth\":");
    number(n->mStroke.enable ? n->mStroke.width : 0);
    std::printf(",\"opacity\":");
    number(n->mColor.a / 255.0);
    std::printf(",\"clips\":[");
    for (size_t k = 0; k < clips.size(); k++) {
        std::printf(k ? ",[" : "[");
        elements(clips[k]->mClipPath.ptPtr, clips[k]->mClipPath.elmPtr, clips[k]->mClipPath.elmCount);
        std::printf("]");
    }
    std::printf("]}");
}

// Painter's order: a layer's own nodes, then its sublayers, each list bottom first.
static void layer(const LOTLayerNode *l) {
    if (!l->mVisible) return;
    bool clipped = l->mClipPath.elmCount > 0;
    if (clipped) clips.push_back(l);
    for (size_t i = 0; i < l->mNodeList.size; i++) node(l->mNodeList.ptr[i]);
    for (size_t i = 0; i < l->mLayerList.size; i++) layer(l->mLayerList.ptr[i]);
    if (clipped) clips.pop_back();
}

int main(int argc, char **argv) {
    if (argc < 2) { std::fprintf(stderr, "usage: rlottie-geometry FILE --frames 0,7 --size 256 --ip IP\n"); return 2; }
    std::string frames = "0";
    double ip = 0;
    size_t size = 256;
    for (int k = 2; k + 1 < argc; k += 2) {
        std::string option = argv[k];
        if (option == "--frames") frames = argv[k + 1];
        else if (option == "--size") size = std::strtoul(argv[k + 1], nullptr, 10);
        else if (option == "--ip") ip = std::strtod(argv[k + 1], nullptr);   // rlottie counts frames from it
    }
    // Loaded once to check the file; each frame below reads a fresh copy: rlottie keeps state
    // between renderTree calls (two trims on one path: the first is not recomputed when only the
    // second moves), which would make a frame depend on the frames asked before it.
    if (!rlottie::Animation::loadFromFile(argv[1], false)) { std::fprintf(stderr, "rlottie cannot load %s\n", argv[1]); return 2; }
    std::printf("{\"frames\":[");
    size_t start = 0;
    bool firstFrame = true;
    while (start <= frames.size()) {
        size_t comma = frames.find(',', start);
        std::string item = frames.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        double frame = std::strtod(item.c_str(), nullptr);
        std::printf(firstFrame ? "" : ",");
        firstFrame = false;
        std::printf("{\"frame\":"); number(frame); std::printf(",\"nodes\":[");
        first = true;
        auto animation = rlottie::Animation::loadFromFile(argv[1], false);
        const LOTLayerNode *tree = animation ? animation->renderTree((size_t)std::llround(frame - ip), size, size) : nullptr;
        if (tree) layer(tree);
        std::printf("]}");
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::printf("]}\n");
    return 0;
}
