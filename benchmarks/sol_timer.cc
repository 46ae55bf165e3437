// Times SOL's learning pass on data preloaded by SOL's own reader.
//
// Part of olearn's benchmarks (benchmarks/sol_peer.py builds and drives it);
// it contains no SOL code: it links against libsol and includes its headers.
//
//   olearn_sol_timer FILE.svm
//
// reads FILE with SOL's LIBSVM reader into minibatches of 256 rows (SOL's
// default batch size) held in memory, prints one JSON line with the load time,
// then reads commands from stdin, one per line:
//
//   ALGO PARAMS      e.g. "arow r=1" or "pa1 C=1" ("-" for no parameters)
//
// and for each one creates a fresh binary model, runs SOL's own
// OnlineModel::Train over the preloaded minibatches (one pass) and prints
// {"train_s", "rows", "mistakes", "updates"}.  Only Train is timed: the data
// are already parsed, so the time is the learning pass alone.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sol/sol.h>
#include <sol/model/online_model.h>
#include <sol/util/str_util.h>

using namespace sol;
using namespace sol::model;
using namespace sol::pario;

// A DataIter that serves minibatches already in memory (Next is virtual).
class MemoryIter : public DataIter {
 public:
  MemoryIter() : DataIter(1, 1) {}
  ~MemoryIter() {
    for (MiniBatch* mb : batches) delete mb;
  }
  MiniBatch* Next(MiniBatch*) override {
    return pos < batches.size() ? batches[pos++] : nullptr;
  }
  std::vector<MiniBatch*> batches;
  size_t pos = 0;
};

struct Counts {
  long long rows = 0, updates = 0;
  double err_rate = 0;
};

static void on_iterate(void* ctx, long long data_num, long long, long long update_num,
                       double err_rate) {
  Counts* c = static_cast<Counts*>(ctx);
  c->rows = data_num;
  c->updates = update_num;
  c->err_rate = err_rate;
}

static double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.svm\n", argv[0]);
    return 2;
  }
  MemoryIter data;
  double start = now();
  std::unique_ptr<DataReader> reader(DataReader::Create("svm"));
  if (!reader || reader->Open(argv[1]) != Status_OK) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  long long rows = 0, nnz = 0;
  int status = Status_OK;
  while (status == Status_OK) {
    MiniBatch* mb = new MiniBatch(256);
    while (mb->data_num < mb->capacity()) {
      status = reader->Next((*mb)[mb->data_num]);
      if (status != Status_OK) break;
      nnz += (*mb)[mb->data_num].size();
      ++mb->data_num;
    }
    rows += mb->data_num;
    if (mb->data_num > 0) data.batches.push_back(mb); else delete mb;
  }
  reader->Close();
  if (status != Status_EndOfFile) {
    std::fprintf(stderr, "read error %d in %s\n", status, argv[1]);
    return 1;
  }
  std::printf("{\"load_s\": %.6f, \"rows\": %lld, \"nnz\": %lld}\n", now() - start,
              rows, nnz);
  std::fflush(stdout);

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string algo, params;
    if (!(words >> algo)) continue;
    words >> params;
    std::unique_ptr<Model> model(Model::Create(algo, 2));
    if (!model) {
      std::printf("{\"error\": \"unknown algorithm %s\"}\n", algo.c_str());
      std::fflush(stdout);
      continue;
    }
    try {
      if (!params.empty() && params != "-") {
        for (const std::string& opt : split(params, ';')) {
          const std::vector<std::string>& kv = split(opt, '=');
          model->SetParameter(strip(kv.at(0)), strip(kv.at(1)));
        }
      }
    } catch (std::exception& err) {
      std::printf("{\"error\": \"%s\"}\n", err.what());
      std::fflush(stdout);
      continue;
    }
    Counts counts;
    OnlineModel* online = dynamic_cast<OnlineModel*>(model.get());
    if (online) online->set_iterate_callback(on_iterate, &counts);
    data.pos = 0;
    double t0 = now();
    model->Train(data);
    double seconds = now() - t0;
    long long mistakes = std::llround(counts.err_rate * counts.rows);
    std::printf("{\"train_s\": %.6f, \"rows\": %lld, \"mistakes\": %lld, \"updates\": %lld}\n",
                seconds, counts.rows, mistakes, counts.updates);
    std::fflush(stdout);
  }
  return 0;
}
