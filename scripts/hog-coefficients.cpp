// Writes OpenCV's default people detector (the linear SVM over a 64x128 HOG window that
// cv::HOGDescriptor::getDefaultPeopleDetector() returns: 3780 weights, then the bias) to the
// file named by argv[1] as 3781 little-endian float32. Built and run once by
// scripts/fetch-models.sh; cinegraph reads the file (HOGPersonDetector), not OpenCV.
#include <opencv2/objdetect.hpp>
#include <cstdio>
int main(int argc, char** argv) {
    if (argc != 2) { std::fprintf(stderr, "usage: hog-coefficients OUT\n"); return 2; }
    std::vector<float> w = cv::HOGDescriptor::getDefaultPeopleDetector();
    std::FILE* f = std::fopen(argv[1], "wb");
    if (!f || std::fwrite(w.data(), sizeof(float), w.size(), f) != w.size() || std::fclose(f) != 0) {
        std::perror(argv[1]);
        return 1;
    }
    return 0;
}
