"""The seed tutorial's LeNet: exact repr, parameter shapes, a forward pass and a training step that learns."""
import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.nn import functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


EXPECTED = """Net(
  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))
  (conv2): Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1))
  (fc1): Linear(in_features=400, out_features=120, bias=True)
  (fc2): Linear(in_features=120, out_features=84, bias=True)
  (fc3): Linear(in_features=84, out_features=10, bias=True)
)"""


def test_net_repr_is_exactly_pytorchs():
    assert repr(Net()) == EXPECTED
    assert str(Net()) == EXPECTED


def test_net_parameters_and_forward_shapes():
    net = Net()
    shapes = [tuple(p.shape) for p in net.parameters()]
    assert shapes == [(6, 1, 5, 5), (6,), (16, 6, 5, 5), (16,), (120, 400), (120,), (84, 120), (84,), (10, 84),
                      (10,)]
    out = net(em.randn(4, 1, 32, 32))
    assert out.shape == (4, 10)
    out.sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())


def test_net_training_steps_reduce_the_loss():
    em.manual_seed(0)
    net = Net()
    x = em.randn(16, 1, 32, 32)
    y = em.tensor(np.arange(16) % 10)
    opt = optim.Adam(net.parameters(), lr=3e-3)
    losses = []
    for _ in range(12):
        opt.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.6 * losses[0]  # it memorises the 16 random images
