import type { Sequelize } from 'sequelize';
import { ApiKey } from './ApiKey';
import { DiceBoxItem } from './DiceBoxItem';
import { Participant } from './Participant';
import { Roll } from './Roll';
import { RollValue } from './RollValue';
import { RollWhisper } from './RollWhisper';
import { Room } from './Room';
import { RoomBackground } from './RoomBackground';
import { ShareRequest } from './ShareRequest';
import { Theme } from './Theme';
import { ThemeAsset } from './ThemeAsset';
import { User } from './User';

export { ApiKey, DiceBoxItem, Participant, Roll, RollValue, RollWhisper, Room, RoomBackground, ShareRequest, Theme, ThemeAsset, User };

/** Bind every model to `sequelize` and declare the associations (snake_case columns via underscored). */
export function initModels(sequelize: Sequelize) {
  for (const model of [User, ApiKey, Theme, ThemeAsset, DiceBoxItem, Room, RoomBackground, Participant, Roll, RollValue, RollWhisper, ShareRequest]) {
    model.initModel(sequelize);
  }
  ApiKey.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  User.hasMany(ApiKey, { as: 'apiKeys', foreignKey: 'userId' });

  Theme.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Theme.hasMany(ThemeAsset, { as: 'assets', foreignKey: 'themeId', onDelete: 'CASCADE' });
  ThemeAsset.belongsTo(Theme, { as: 'theme', foreignKey: 'themeId' });

  DiceBoxItem.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  DiceBoxItem.belongsTo(Theme, { as: 'theme', foreignKey: 'themeId' });

  Room.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Room.hasMany(Participant, { as: 'participants', foreignKey: 'roomId' });
  Room.hasOne(RoomBackground, { as: 'background', foreignKey: 'roomId' });
  RoomBackground.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Participant.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Participant.belongsTo(User, { as: 'user', foreignKey: 'userId' });

  Roll.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Roll.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Roll.hasMany(RollValue, { as: 'values', foreignKey: 'rollId' });
  Roll.hasMany(RollWhisper, { as: 'whispers', foreignKey: 'rollId' });
  RollValue.belongsTo(Roll, { as: 'roll', foreignKey: 'rollId' });
  RollWhisper.belongsTo(Roll, { as: 'roll', foreignKey: 'rollId' });
  RollWhisper.belongsTo(Participant, { as: 'participant', foreignKey: 'participantId' });
  RollWhisper.belongsTo(User, { as: 'user', foreignKey: 'userId' });

  ShareRequest.belongsTo(User, { as: 'user', foreignKey: 'userId' });
}
