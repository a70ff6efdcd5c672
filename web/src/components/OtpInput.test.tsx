import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { OtpInput } from '@/components/OtpInput';

function Harness({ length }: { length: number }) {
  const [value, setValue] = useState<string[]>(() => Array<string>(length).fill(''));
  return (
    <>
      <OtpInput id="code" label="Code" value={value} onChange={setValue} />
      <output data-testid="value">{value.map((digit) => digit || '_').join('')}</output>
    </>
  );
}

function boxes() {
  return screen.getAllByRole('textbox');
}

const value = () => screen.getByTestId('value').textContent;

describe('OtpInput', () => {
  it('draws one labelled box per digit in a named group', () => {
    render(<Harness length={4} />);
    expect(screen.getByRole('group', { name: 'Code' })).toBeInTheDocument();
    expect(boxes().map((box) => box.getAttribute('aria-label'))).toEqual([
      'Digit 1 of 4',
      'Digit 2 of 4',
      'Digit 3 of 4',
      'Digit 4 of 4',
    ]);
    expect(boxes()[0]).toHaveAttribute('inputmode', 'numeric');
  });

  it('takes digits only', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[0]);
    await user.keyboard('a');
    await user.keyboard('-');
    await user.keyboard(' ');
    expect(value()).toBe('____');
    expect(boxes()[0]).toHaveFocus();
    await user.keyboard('7');
    expect(value()).toBe('7___');
  });

  it('moves to the next box after each digit', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[0]);
    await user.keyboard('1');
    expect(boxes()[1]).toHaveFocus();
    await user.keyboard('2x3');
    expect(boxes()[3]).toHaveFocus();
    await user.keyboard('4');
    expect(value()).toBe('1234');
    expect(boxes()[3]).toHaveFocus();
  });

  it('Backspace on an empty box clears the previous one and goes back', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[0]);
    await user.keyboard('12');
    expect(boxes()[2]).toHaveFocus();
    await user.keyboard('{Backspace}');
    expect(boxes()[1]).toHaveFocus();
    expect(value()).toBe('1___');
    await user.keyboard('{Backspace}');
    expect(boxes()[0]).toHaveFocus();
    expect(value()).toBe('____');
  });

  it('a pasted code fills every box', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[2]);
    await user.paste('9876');
    expect(value()).toBe('9876');
    expect(boxes()[3]).toHaveFocus();
  });

  it('a pasted code drops spaces and other signs, and a six-digit code fills six boxes', async () => {
    const user = userEvent.setup();
    render(<Harness length={6} />);
    await user.click(boxes()[0]);
    await user.paste(' 123-456 ');
    expect(value()).toBe('123456');
  });

  it('a pasted text without digits changes nothing', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[0]);
    await user.paste('abcd');
    expect(value()).toBe('____');
  });

  it('typing over a filled box replaces its digit', async () => {
    const user = userEvent.setup();
    render(<Harness length={4} />);
    await user.click(boxes()[0]);
    await user.keyboard('1234');
    await user.click(boxes()[1]);
    await user.keyboard('9');
    expect(value()).toBe('1934');
    expect(boxes()[2]).toHaveFocus();
  });
});
