"""PyTorch's "Getting Started with Distributed Data Parallel" tutorial (the CPU form of ``demo_basic``), with only
the imports changed. ``python ddp_tutorial.py BACKEND OUT_DIR``: each rank writes its final weights to OUT_DIR."""
import os
import sys

import ember as torch
import ember.distributed as dist
import ember.multiprocessing as mp
import ember.nn as nn
import ember.optim as optim
from ember.nn.parallel import DistributedDataParallel as DDP


def setup(rank, world_size):
    os.environ['MASTER_ADDR'] = 'localhost'
    os.environ['MASTER_PORT'] = os.environ.get("TUTORIAL_PORT", '12355')

    # initialize the process group
    dist.init_process_group(BACKEND, rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super(ToyModel, self).__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def demo_basic(rank, world_size):
    print(f"Running basic DDP example on rank {rank}.")
    setup(rank, world_size)

    # create model and move it to GPU with id rank
    torch.manual_seed(rank)  # different initial weights per rank: DDP must broadcast rank 0's
    model = ToyModel()
    ddp_model = DDP(model)

    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)

    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5)
    loss_fn(outputs, labels).backward()
    optimizer.step()

    torch.save(ddp_model.state_dict(), os.path.join(OUT_DIR, f"rank{rank}.pt"))
    print(f"backend {dist.get_backend()} rank {dist.get_rank()} of {dist.get_world_size()}")
    cleanup()
    print(f"Finished running basic DDP example on rank {rank}.")


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn,
             args=(world_size,),
             nprocs=world_size,
             join=True)


BACKEND, OUT_DIR = sys.argv[1], sys.argv[2]

if __name__ == "__main__":
    world_size = 2
    run_demo(demo_basic, world_size)
